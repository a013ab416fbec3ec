import { type ClientRecord, hashClientSecret, memoryClientStore } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { basic, ISSUER, post, REDIRECT_URI, testClients, testInstance } from '../../../test/fixtures';

/** The test clients plus the registrations these cases need. */
async function instanceWith(extra: ClientRecord[]) {
  return testInstance({ clients: memoryClientStore([...(await testClients()), ...extra]) });
}

const REVOKE = '/oauth2/v1/revoke';

async function expectError(response: Response, status: number, error: string) {
  expect(response.status).toBe(status);
  expect((await response.json()).error).toBe(error);
  if (status === 401) expect(response.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
}

describe('client authentication by the registered method', () => {
  it('accepts each client with the method it is registered for, by default by its type', async () => {
    const t = await instanceWith([
      {
        id: 'explicit-basic',
        type: 'confidential',
        secretHash: await hashClientSecret('s3cret'),
        tokenEndpointAuthMethod: 'client_secret_basic',
        redirectUris: [REDIRECT_URI],
      },
    ]);
    for (const [headers, form] of [
      [{ Authorization: basic('demo-client', 'demo-secret') }, {}],
      [{ Authorization: basic('explicit-basic', 's3cret') }, { client_id: 'explicit-basic' }],
      [{}, { client_id: 'demo-spa' }],
    ] as const) {
      const response = await t.gatehouse.fetch(post(REVOKE, { token: 'unknown', ...form }, headers));
      expect(response.status).toBe(200);
    }
  });

  it('refuses a method other than the registered one exactly like a wrong secret', async () => {
    const t = await instanceWith([
      {
        id: 'jwt-client',
        type: 'confidential',
        secretHash: await hashClientSecret('jwt-secret'),
        tokenEndpointAuthMethod: 'private_key_jwt',
        redirectUris: [REDIRECT_URI],
      },
      {
        id: 'public-with-basic',
        type: 'public',
        secretHash: await hashClientSecret('public-secret'),
        tokenEndpointAuthMethod: 'client_secret_basic',
        redirectUris: [REDIRECT_URI],
      },
      {
        id: 'confidential-with-none',
        type: 'confidential',
        tokenEndpointAuthMethod: 'none',
        redirectUris: [REDIRECT_URI],
      },
    ]);
    const wrongSecret = await t.gatehouse.fetch(
      post(REVOKE, { token: 'x' }, { Authorization: basic('demo-client', 'wrong') }),
    );
    const reference = await wrongSecret.clone().json();
    await expectError(wrongSecret, 401, 'invalid_client');
    for (const request of [
      // Registered for a method this server does not offer: the right secret does not help.
      post(REVOKE, { token: 'x' }, { Authorization: basic('jwt-client', 'jwt-secret') }),
      // A public client sending a secret, and a contradictory registration either way.
      post(REVOKE, { token: 'x' }, { Authorization: basic('demo-spa', 'anything') }),
      post(REVOKE, { token: 'x' }, { Authorization: basic('public-with-basic', 'public-secret') }),
      post(REVOKE, { token: 'x', client_id: 'confidential-with-none' }),
      // A confidential client naming itself without credentials, and an unknown client.
      post(REVOKE, { token: 'x', client_id: 'demo-client' }),
      post(REVOKE, { token: 'x', client_id: 'nobody' }),
      post(REVOKE, { token: 'x' }, { Authorization: basic('nobody', 'x') }),
    ]) {
      const response = await t.gatehouse.fetch(request);
      expect(await response.clone().json()).toEqual(reference);
      await expectError(response, 401, 'invalid_client');
    }
  });

  it('answers a request without any method 401 invalid_client, and a malformed Basic header too', async () => {
    const t = await testInstance();
    await expectError(await t.gatehouse.fetch(post(REVOKE, { token: 'x' })), 401, 'invalid_client');
    await expectError(
      await t.gatehouse.fetch(post(REVOKE, { token: 'x' }, { Authorization: 'Basic %%%' })),
      401,
      'invalid_client',
    );
  });

  it('refuses two identities or two methods at once (RFC 6749 §2.3)', async () => {
    const t = await testInstance();
    const auth = { Authorization: basic('demo-client', 'demo-secret') };
    const assertion = {
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJkZW1vLWNsaWVudCJ9.c2ln',
    };
    for (const [form, headers] of [
      [{ client_id: 'other-client' }, auth],
      [{ client_secret: 'demo-secret' }, auth],
      [assertion, auth],
      [{ ...assertion, client_id: 'demo-client', client_secret: 'demo-secret' }, {}],
      // Half of an assertion is a malformed request, not an unknown method.
      [{ client_assertion: assertion.client_assertion }, {}],
    ] as const) {
      await expectError(
        await t.gatehouse.fetch(post(REVOKE, { token: 'x', ...form }, headers)),
        400,
        'invalid_request',
      );
    }
  });

  it('treats credential parameters sent without a value as omitted (RFC 6749 §3.2)', async () => {
    const t = await testInstance();
    const auth = { Authorization: basic('demo-client', 'demo-secret') };
    // node-oauth (under passport-oauth2) sends `client_secret=` even when the secret goes in Basic.
    const forms: Record<string, string>[] = [
      { client_id: 'demo-client', client_secret: '' },
      { client_id: '', client_secret: '', client_assertion: '', client_assertion_type: '' },
    ];
    for (const form of forms) {
      expect((await t.gatehouse.fetch(post(REVOKE, { token: 'x', ...form }, auth))).status).toBe(200);
    }
    // An empty secret is no secret: a confidential client naming itself with it fails to authenticate.
    await expectError(
      await t.gatehouse.fetch(post(REVOKE, { token: 'x', client_id: 'demo-client', client_secret: '' })),
      401,
      'invalid_client',
    );
  });

  it('takes client_secret_post only from clients registered for it', async () => {
    const t = await testInstance({
      clients: memoryClientStore([
        ...(await testClients()),
        {
          id: 'post-client',
          type: 'confidential',
          secretHash: await hashClientSecret('post-secret'),
          redirectUris: [REDIRECT_URI],
          tokenEndpointAuthMethod: 'client_secret_post',
        },
      ]),
    });
    const revoke = (form: Record<string, string>) => t.gatehouse.fetch(post(REVOKE, { token: 'x', ...form }));
    expect((await revoke({ client_id: 'post-client', client_secret: 'post-secret' })).status).toBe(200);
    await expectError(
      await revoke({ client_id: 'post-client', client_secret: 'wrong' }),
      401,
      'invalid_client',
    );
    await expectError(await revoke({ client_secret: 'post-secret' }), 401, 'invalid_client');
    // demo-client is registered for client_secret_basic: its secret in the body does not count.
    await expectError(
      await revoke({ client_id: 'demo-client', client_secret: 'demo-secret' }),
      401,
      'invalid_client',
    );
  });

  it('lets only identity-proving methods introspect', async () => {
    const t = await testInstance();
    await expectError(
      await t.gatehouse.fetch(post('/oauth2/v1/introspect', { token: 'x', client_id: 'demo-spa' })),
      401,
      'invalid_client',
    );
  });

  it('publishes the methods of its table in the metadata', async () => {
    const t = await testInstance();
    const metadata = await (
      await t.gatehouse.fetch(new Request(`${ISSUER}/.well-known/oauth-authorization-server`))
    ).json();
    const all = ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'];
    expect(metadata).toMatchObject({
      token_endpoint_auth_methods_supported: all,
      revocation_endpoint_auth_methods_supported: all,
      introspection_endpoint_auth_methods_supported: all.filter((method) => method !== 'none'),
    });
    expect(t.gatehouse.metadata()).toMatchObject({ token_endpoint_auth_methods_supported: all });
    // Asymmetric algorithms only for assertions: no none, no HMAC (RFC 8725 §3.1).
    for (const endpoint of ['token', 'revocation', 'introspection']) {
      const algorithms: string[] = metadata[`${endpoint}_endpoint_auth_signing_alg_values_supported`];
      expect(algorithms).toContain('ES256');
      expect(algorithms.filter((alg) => alg === 'none' || alg.startsWith('HS'))).toEqual([]);
    }
  });
});

describe('a failed client authentication, explained to the operator', () => {
  async function explained(debug: boolean) {
    const lines: string[] = [];
    const events: unknown[] = [];
    const t = await testInstance({
      debug,
      logger: { warn() {}, error() {}, debug: (line: string) => lines.push(line) },
      onEvent: (event) => events.push(event),
    });
    // openid-client's default: the secret in the body, for a client registered for Basic.
    const response = await t.gatehouse.fetch(
      post(REVOKE, { token: 'x', client_id: 'demo-client', client_secret: 'demo-secret' }),
    );
    await expectError(response, 401, 'invalid_client');
    return { lines, events };
  }

  it('emits client.authentication_failed with the method used and the one registered', async () => {
    const { events } = await explained(false);
    expect(events).toContainEqual({
      type: 'client.authentication_failed',
      clientId: 'demo-client',
      method: 'client_secret_post',
      reason: 'method_not_registered',
      registeredMethod: 'client_secret_basic',
    });
  });

  it('writes the reason to the debug log when it is on, and nothing when it is off', async () => {
    const on = await explained(true);
    expect(on.lines).toHaveLength(1);
    expect(on.lines[0]).toMatch(/^gatehouse: refused POST \/demo\/oauth2\/v1\/revoke: 401 invalid_client: /);
    expect(on.lines[0]).toContain(
      'registered for client_secret_basic but the request used client_secret_post',
    );
    expect(on.lines[0]).not.toContain('demo-secret');
    expect((await explained(false)).lines).toEqual([]);
  });

  it('quotes a presented client_id of 60 KB cut to 256 characters in the debug log', async () => {
    const lines: string[] = [];
    const t = await testInstance({
      debug: true,
      logger: { warn() {}, error() {}, debug: (line: string) => lines.push(line) },
    });
    const response = await t.gatehouse.fetch(
      post(REVOKE, { token: 'x', client_id: 'c'.repeat(60_000), client_secret: 'x' }),
    );
    await expectError(response, 401, 'invalid_client');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('…[cut from 60000 characters]" is not registered');
    expect(lines[0]!.length).toBeLessThan(512);
  });
});
