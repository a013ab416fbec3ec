import type { GatehouseEvent, GatehouseOptions } from '@gatehousejs/core';
import { memoryClientRegistry } from '@gatehousejs/core/engine';
import { describe, expect, it } from 'vitest';
import { authorizeUrl, callbackParams, FakeBrowser, logIn } from '../../../test/browser-flow';
import {
  basic,
  ISSUER,
  PKCE_VERIFIER,
  post,
  REDIRECT_URI,
  type TestOptions,
  testInstance,
} from '../../../test/fixtures';

type Instance = Awaited<ReturnType<typeof testInstance>>;

const REGISTER = `${ISSUER}/oauth2/v1/register`;

function register(t: Instance, body: unknown, headers: Record<string, string> = {}) {
  return t.gatehouse.fetch(
    new Request(REGISTER, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  );
}

const app = (overrides: Record<string, unknown> = {}) => ({
  client_name: 'Registered App',
  redirect_uris: [REDIRECT_URI],
  grant_types: ['authorization_code', 'refresh_token'],
  ...overrides,
});

function instance(registration: GatehouseOptions['dynamicRegistration'] = {}, extra: TestOptions = {}) {
  return testInstance({ dynamicRegistration: registration, ...extra });
}

async function registered(t: Instance, body: unknown = app()) {
  const response = await register(t, body);
  expect(response.status).toBe(201);
  return (await response.json()) as Record<string, unknown> & {
    client_id: string;
    registration_access_token: string;
  };
}

async function expectError(response: Response, status: number, error: string, description?: RegExp) {
  expect(response.status).toBe(status);
  const body = await response.json();
  expect(body.error).toBe(error);
  if (description) expect(body.error_description).toMatch(description);
}

/** Signs the test user in for `clientId` and returns the code (registered clients get the consent page). */
async function codeFor(t: Instance, clientId: string): Promise<string> {
  const browser = new FakeBrowser(t.gatehouse);
  const consent = await browser.follow(await logIn(browser, authorizeUrl({ client_id: clientId })));
  expect(consent.status).toBe(200);
  return callbackParams(await browser.submitAndFollow(await consent.text(), { decision: 'allow' })).get(
    'code',
  )!;
}

const redeem = (code: string, client: Record<string, string>, headers: Record<string, string> = {}) =>
  post(
    '/oauth2/v1/token',
    {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: PKCE_VERIFIER,
      ...client,
    },
    headers,
  );

describe('dynamic client registration (RFC 7591)', () => {
  it('is off by default: no route, no registration_endpoint', async () => {
    const t = await testInstance();
    expect((await register(t, app())).status).toBe(404);
    const metadata = await (
      await t.gatehouse.fetch(new Request(`${ISSUER}/.well-known/oauth-authorization-server`))
    ).json();
    expect(metadata.registration_endpoint).toBeUndefined();
  });

  it('registers a public client by default, which then completes a code flow with PKCE and no secret', async () => {
    const events: GatehouseEvent[] = [];
    const t = await instance({}, { onEvent: (event) => events.push(event) });
    const metadata = await (
      await t.gatehouse.fetch(new Request(`${ISSUER}/.well-known/oauth-authorization-server`))
    ).json();
    expect(metadata.registration_endpoint).toBe(REGISTER);
    const client = await registered(t);
    expect(client).toMatchObject({
      client_name: 'Registered App',
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      application_type: 'web',
      registration_client_uri: `${REGISTER}/${client.client_id}`,
    });
    expect(client.client_id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(client.client_secret).toBeUndefined();
    expect(events).toContainEqual({ type: 'client.registered', clientId: client.client_id });

    const token = await t.gatehouse.fetch(
      redeem(await codeFor(t, client.client_id), { client_id: client.client_id }),
    );
    expect(token.status).toBe(200);
  });

  it('registers confidential clients only when allowed, and their secret authenticates at the token endpoint', async () => {
    const closed = await instance();
    await expectError(
      await register(closed, app({ token_endpoint_auth_method: 'client_secret_basic' })),
      400,
      'invalid_client_metadata',
      /token_endpoint_auth_method must be one of: none/,
    );
    const t = await instance({ allowConfidential: true });
    const client = await registered(t, app({ token_endpoint_auth_method: 'client_secret_basic' }));
    expect(client.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(client.client_secret_expires_at).toBe(0);
    const code = await codeFor(t, client.client_id);
    const wrong = await t.gatehouse.fetch(
      redeem(code, {}, { Authorization: basic(client.client_id, 'wrong') }),
    );
    expect(wrong.status).toBe(401);
    const right = await t.gatehouse.fetch(
      redeem(code, {}, { Authorization: basic(client.client_id, client.client_secret as string) }),
    );
    expect(right.status).toBe(200);
  });

  it('registers require_pushed_authorization_requests and dpop_bound_access_tokens, and enforces them', async () => {
    const t = await instance();
    const client = await registered(
      t,
      app({ require_pushed_authorization_requests: true, dpop_bound_access_tokens: true }),
    );
    expect(client).toMatchObject({
      require_pushed_authorization_requests: true,
      dpop_bound_access_tokens: true,
    });
    // A self-registered client's errors are an error page, never a redirect (RFC 9700 §4.11.2).
    const plain = await t.gatehouse.fetch(new Request(authorizeUrl({ client_id: client.client_id })));
    expect(plain.status).toBe(400);
    expect(plain.headers.get('location')).toBeNull();
    expect(await plain.text()).toContain('pushed');
    const bad = await register(t, app({ dpop_bound_access_tokens: 'yes' }));
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toBe('invalid_client_metadata');
  });

  it('refuses bad redirect URIs with invalid_redirect_uri', async () => {
    const t = await instance();
    for (const uris of [
      undefined,
      [],
      ['http://app.example/cb'],
      ['https://app.example/cb#f'],
      ['not a uri'],
      ['javascript:alert(1)'],
    ]) {
      await expectError(await register(t, app({ redirect_uris: uris })), 400, 'invalid_redirect_uri');
    }
    // Loopback http (RFC 8252 §7.3) is fine, for web and native apps alike.
    await registered(
      t,
      app({ redirect_uris: ['http://127.0.0.1:8123/cb', 'http://[::1]/cb'], application_type: 'native' }),
    );
  });

  it('refuses other bad metadata with invalid_client_metadata', async () => {
    const t = await instance({ maxPerAddress: 100 }, { scopes: ['read', 'write'] });
    const cases: [unknown, RegExp][] = [
      [app({ grant_types: ['client_credentials'] }), /not supported/],
      [app({ grant_types: ['refresh_token'] }), /must include authorization_code/],
      [app({ response_types: ['token'] }), /response_types/],
      [app({ application_type: 'desktop' }), /application_type/],
      [app({ token_endpoint_auth_method: 'private_key_jwt' }), /token_endpoint_auth_method/],
      [app({ client_name: 'a\nb' }), /client_name/],
      [app({ scope: 'read admin' }), /'admin' is not a scope/],
      [app({ logo_uri: 'http://app.example/logo.png' }), /logo_uri must be an https URI/],
      [[1, 2], /JSON object/],
      ['{not json', /not JSON/],
    ];
    for (const [body, description] of cases)
      await expectError(await register(t, body), 400, 'invalid_client_metadata', description);
    await expectError(
      await t.gatehouse.fetch(new Request(REGISTER, { method: 'POST', body: 'redirect_uris=x' })),
      400,
      'invalid_request',
      /application\/json/,
    );
    const scoped = await registered(
      t,
      app({ scope: 'read', contacts: ['ops@app.example'], unknown_field: 1 }),
    );
    expect(scoped.scope).toBe('read');
    expect(scoped.contacts).toEqual(['ops@app.example']);
    expect(scoped.unknown_field).toBeUndefined();
  });

  it('limits registrations per client address, refusing with 429 and Retry-After', async () => {
    const t = await instance(
      { maxPerAddress: 2, windowSeconds: 600 },
      { rateLimit: { clientAddress: (r) => r.headers.get('x-test-address') ?? undefined } },
    );
    const from = (address: string) => register(t, app(), { 'x-test-address': address });
    expect((await from('198.51.100.7')).status).toBe(201);
    expect((await from('198.51.100.7')).status).toBe(201);
    const refused = await from('198.51.100.7');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('600');
    expect((await from('198.51.100.8')).status).toBe(201);
    t.clock.advance(600);
    expect((await from('198.51.100.7')).status).toBe(201);
  });

  it('requires the initial access token when one is configured', async () => {
    const token = 'initial-access-token-0123456789';
    const t = await instance({ initialAccessToken: token });
    const missing = await register(t, app());
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe(`Bearer realm="${ISSUER}"`);
    const wrong = await register(t, app(), { Authorization: 'Bearer initial-access-token-wrong' });
    await expectError(wrong, 401, 'invalid_token');
    expect((await register(t, app(), { Authorization: `Bearer ${token}` })).status).toBe(201);
  });

  it('lets an unused registration lapse, and keeps a used one alive', async () => {
    const t = await instance({ unusedTtl: 3600 });
    const unused = await registered(t);
    const used = await registered(t);
    t.clock.advance(2000);
    await codeFor(t, used.client_id); // a use more than half a lifetime in moves the deadline
    t.clock.advance(2000);
    const lapsed = await new FakeBrowser(t.gatehouse).get(authorizeUrl({ client_id: unused.client_id }));
    expect(lapsed.status).toBe(400);
    expect(await lapsed.text()).toContain('The client is unknown');
    expect((await new FakeBrowser(t.gatehouse).get(authorizeUrl({ client_id: used.client_id }))).status).toBe(
      200,
    );
  });

  it('never lets a registration shadow a configured client', async () => {
    const t = await instance();
    const client = await registered(t);
    expect(client.client_id).not.toBe('demo-client');
    // The registry is consulted after the host: demo-client stays the configured one.
    const page = await new FakeBrowser(t.gatehouse).get(authorizeUrl({ client_id: 'demo-client' }));
    expect(page.status).toBe(200);
  });
});

describe('client configuration endpoint (RFC 7592)', () => {
  it('reads and deletes a registration with its registration access token, and nothing else', async () => {
    const t = await instance();
    const client = await registered(t);
    const other = await registered(t);
    const uri = client.registration_client_uri as string;
    const call = (method: string, token?: string, at = uri) =>
      t.gatehouse.fetch(
        new Request(at, { method, headers: token ? { Authorization: `Bearer ${token}` } : {} }),
      );

    const read = await call('GET', client.registration_access_token);
    expect(read.status).toBe(200);
    expect(read.headers.get('cache-control')).toBe('no-store');
    const body = await read.json();
    expect(body.client_id).toBe(client.client_id);
    expect(body.registration_access_token).toBeUndefined();

    expect((await call('GET')).status).toBe(401);
    await expectError(await call('GET', other.registration_access_token), 401, 'invalid_token');
    await expectError(await call('DELETE', 'x'.repeat(43)), 401, 'invalid_token');
    await expectError(
      await call('GET', client.registration_access_token, `${REGISTER}/unknown`),
      401,
      'invalid_token',
    );
    await expectError(
      await call('GET', client.registration_access_token, `${REGISTER}/demo-client`),
      401,
      'invalid_token',
    );
    expect((await call('PUT', client.registration_access_token)).status).toBe(405);

    expect((await call('DELETE', client.registration_access_token)).status).toBe(204);
    await expectError(await call('GET', client.registration_access_token), 401, 'invalid_token');
    const gone = await new FakeBrowser(t.gatehouse).get(authorizeUrl({ client_id: client.client_id }));
    expect(gone.status).toBe(400);
    expect(
      (await call('GET', other.registration_access_token, other.registration_client_uri as string)).status,
    ).toBe(200);
  });

  it('answers 503 with Retry-After, never a 500, when the registry is full', async () => {
    const t = await instance({}, { storage: { clients: memoryClientRegistry({ maxClients: 1 }) } });
    await registered(t);
    const response = await register(t, app());
    expect(response.headers.get('retry-after')).toBe('60');
    await expectError(response, 503, 'temporarily_unavailable');
  });
});
