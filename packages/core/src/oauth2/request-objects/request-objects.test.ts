import {
  type ClientRecord,
  ConfigurationError,
  hashClientSecret,
  memoryClientStore,
  type OutboundFetch,
} from '@gatehousejs/core';
import { exportJWK, generateKeyPair, type JWK, SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { callbackParams, FakeBrowser } from '../../../test/browser-flow';
import {
  basic,
  ISSUER,
  PKCE_CHALLENGE,
  PKCE_VERIFIER,
  post,
  REDIRECT_URI,
  type TestOptions,
  testClients,
  testInstance,
} from '../../../test/fixtures';

const JWKS_URI = 'https://keys.example.com/jwks.json';

async function keyPair(kid: string) {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  return { privateKey, publicJwk, kid };
}
type Key = Awaited<ReturnType<typeof keyPair>>;

/** An instance whose clients sign request objects: `signer` (inline jwks), `strict` (must sign), `by-uri` (jwks_uri). */
async function jarInstance(key: Key, overrides: TestOptions = {}, extra: Partial<ClientRecord> = {}) {
  const secretHash = await hashClientSecret('signer-secret');
  const base = { type: 'confidential' as const, secretHash, redirectUris: [REDIRECT_URI], firstParty: true };
  const clients: ClientRecord[] = [
    ...(await testClients()),
    { id: 'signer', ...base, jwks: { keys: [key.publicJwk] }, ...extra },
    { id: 'strict', ...base, jwks: { keys: [key.publicJwk] }, requireSignedRequestObject: true },
    { id: 'by-uri', ...base, jwksUri: JWKS_URI },
    { id: 'unsigned', ...base, requestObjectSigningAlg: 'none' },
  ];
  const served: string[] = [];
  const fetch: OutboundFetch = async ({ url }) => {
    served.push(url.href);
    return new Response(JSON.stringify({ keys: [key.publicJwk] }), {
      headers: { 'Content-Type': 'application/json' },
    });
  };
  const t = await testInstance({ clients: memoryClientStore(clients), clientJwks: { fetch }, ...overrides });
  return { ...t, served };
}
type JarInstance = Awaited<ReturnType<typeof jarInstance>>;

const PARAMETERS = {
  response_type: 'code',
  redirect_uri: REDIRECT_URI,
  scope: 'read',
  state: 'signed-state',
  code_challenge: PKCE_CHALLENGE,
  code_challenge_method: 'S256',
};

/** A request object of `clientId` signed by `key`, valid for 60 s; `claims`/`header` override (undefined removes). */
function requestObject(
  t: JarInstance,
  key: Key,
  clientId = 'signer',
  claims: Record<string, unknown> = {},
  header: Record<string, unknown> = {},
): Promise<string> {
  const now = Math.floor(t.clock.now() / 1000);
  const payload = Object.fromEntries(
    Object.entries({
      ...PARAMETERS,
      client_id: clientId,
      iss: clientId,
      aud: ISSUER,
      iat: now,
      nbf: now,
      exp: now + 60,
      jti: crypto.randomUUID(),
      ...claims,
    }).filter(([, value]) => value !== undefined),
  );
  return new SignJWT(payload)
    .setProtectedHeader({ alg: 'ES256', typ: 'oauth-authz-req+jwt', kid: key.kid, ...header })
    .sign(key.privateKey);
}

const authorize = (query: Record<string, string>) =>
  new Request(`${ISSUER}/oauth2/v1/authorize?${new URLSearchParams(query)}`);

/** Whether an authorize answer sends the browser to the login page of an interaction. */
const toLogin = (response: Response) =>
  response.status === 303 && response.headers.get('location')!.startsWith(`${ISSUER}/login?interaction=`);

/** A refusal shown as a page (never redirected: the object's redirect URI is not trusted). */
async function expectRefusedPage(response: Response, text = 'invalid_request_object') {
  expect(response.status).toBe(400);
  expect(response.headers.get('location')).toBeNull();
  expect(await response.text()).toContain(text);
}

describe('signed request objects (RFC 9101): metadata and options', () => {
  it('advertises request by value, its algorithms, and whether signed objects are required', async () => {
    const key = await keyPair('k1');
    const t = await jarInstance(key);
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const metadata = await (await t.gatehouse.fetch(new Request(ISSUER + path))).json();
      expect(metadata).toMatchObject({
        request_parameter_supported: true,
        require_signed_request_object: false,
      });
      expect(metadata.request_object_signing_alg_values_supported).toContain('ES256');
      expect(metadata.request_object_signing_alg_values_supported).not.toContain('none');
    }
    const required = await jarInstance(key, { requestObjects: { required: true } });
    const metadata = await (
      await required.gatehouse.fetch(new Request(`${ISSUER}/.well-known/openid-configuration`))
    ).json();
    expect(metadata.require_signed_request_object).toBe(true);
    expect(metadata.request_uri_parameter_supported).toBe(false);
  });

  it('refuses unsigned objects alongside the FAPI 2.0 profile or required signing', async () => {
    for (const options of [
      { requestObjects: { allowUnsigned: true, required: true } },
      { requestObjects: { allowUnsigned: true }, securityProfile: 'fapi2' as const },
    ]) {
      const error = await testInstance(options as TestOptions).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as ConfigurationError).option).toBe('requestObjects.allowUnsigned');
    }
  });
});

describe('signed request objects (RFC 9101): by value at the authorization endpoint', () => {
  it('runs the code flow from a signed object; only its parameters count (§6.3)', async () => {
    const key = await keyPair('k1');
    const t = await jarInstance(key);
    const browser = new FakeBrowser(t.gatehouse);
    const page = await browser.get(
      `${ISSUER}/oauth2/v1/authorize?${new URLSearchParams({
        client_id: 'signer',
        request: await requestObject(t, key),
        // Outside the object: ignored.
        state: 'outside',
        scope: 'write',
        redirect_uri: 'https://evil.example/cb',
      })}`,
    );
    expect(page.status).toBe(200);
    const redirect = await browser.follow(
      await browser.submit(await page.text(), { username: 'demo', password: 'demo-password' }),
    );
    const query = callbackParams(redirect);
    expect(redirect.headers.get('location')!.startsWith(`${REDIRECT_URI}?`)).toBe(true);
    expect(query.get('state')).toBe('signed-state');
    const tokens = await t.gatehouse.fetch(
      post(
        '/oauth2/v1/token',
        {
          grant_type: 'authorization_code',
          code: query.get('code')!,
          redirect_uri: REDIRECT_URI,
          code_verifier: PKCE_VERIFIER,
        },
        { Authorization: basic('signer', 'signer-secret') },
      ),
    );
    expect(tokens.status).toBe(200);
    expect(((await tokens.json()) as { scope: string }).scope).toBe('read');
  });

  it('verifies with the client’s jwks_uri through the client key cache', async () => {
    const key = await keyPair('k1');
    const t = await jarInstance(key);
    const response = await t.gatehouse.fetch(
      authorize({ client_id: 'by-uri', request: await requestObject(t, key, 'by-uri') }),
    );
    expect(toLogin(response)).toBe(true);
    expect(t.served).toEqual([JWKS_URI]);
  });

  it('refuses, as a page and never a redirect, every object that breaks a rule', async () => {
    const key = await keyPair('k1');
    const other = await keyPair('k1'); // same kid, another key
    const t = await jarInstance(key);
    const now = Math.floor(t.clock.now() / 1000);
    const hs256 = await new SignJWT({ ...PARAMETERS, iss: 'signer', aud: ISSUER, exp: now + 60, jti: 'h' })
      .setProtectedHeader({ alg: 'HS256', typ: 'oauth-authz-req+jwt' })
      .sign(new Uint8Array(32));
    const unsigned = new UnsecuredJWT({
      ...PARAMETERS,
      iss: 'signer',
      aud: ISSUER,
      exp: now + 60,
      jti: 'u',
    }).encode();
    const cases: [string, string][] = [
      ['not a JWT', 'not-a-jwt'],
      ['another key', await requestObject(t, other)],
      ['wrong typ', await requestObject(t, key, 'signer', {}, { typ: 'JWT' })],
      ['no typ', await requestObject(t, key, 'signer', {}, { typ: undefined })],
      ['wrong aud', await requestObject(t, key, 'signer', { aud: 'https://elsewhere.example' })],
      ['wrong iss', await requestObject(t, key, 'signer', { iss: 'other-client' })],
      ['expired', await requestObject(t, key, 'signer', { exp: now - 60 })],
      ['no exp', await requestObject(t, key, 'signer', { exp: undefined })],
      ['exp too far', await requestObject(t, key, 'signer', { exp: now + 3600 })],
      ['not yet valid', await requestObject(t, key, 'signer', { nbf: now + 600 })],
      ['no jti', await requestObject(t, key, 'signer', { jti: undefined })],
      ['another client_id inside', await requestObject(t, key, 'signer', { client_id: 'other-client' })],
      ['a request inside', await requestObject(t, key, 'signer', { request: 'x' })],
      ['a request_uri inside', await requestObject(t, key, 'signer', { request_uri: 'urn:x' })],
      ['HS256', hs256],
      ['alg none', unsigned],
    ];
    for (const [name, object] of cases) {
      const response = await t.gatehouse.fetch(authorize({ client_id: 'signer', request: object }));
      expect({ name, status: response.status, location: response.headers.get('location') }).toEqual({
        name,
        status: 400,
        location: null,
      });
      expect(await response.text()).toContain('invalid_request_object');
    }
    // A client without keys, and an unknown client.
    await expectRefusedPage(
      await t.gatehouse.fetch(
        authorize({ client_id: 'other-client', request: await requestObject(t, key, 'other-client') }),
      ),
    );
    await expectRefusedPage(
      await t.gatehouse.fetch(
        authorize({ client_id: 'nobody', request: await requestObject(t, key, 'nobody') }),
      ),
      'invalid_request',
    );
  });

  it('uses each object once: a replay is refused until it expires (jti kept per client)', async () => {
    const key = await keyPair('k1');
    const t = await jarInstance(key);
    const object = await requestObject(t, key);
    expect(toLogin(await t.gatehouse.fetch(authorize({ client_id: 'signer', request: object })))).toBe(true);
    await expectRefusedPage(await t.gatehouse.fetch(authorize({ client_id: 'signer', request: object })));
  });

  it('holds a client to its registered algorithm', async () => {
    const key = await keyPair('k1');
    const t = await jarInstance(key, {}, { requestObjectSigningAlg: 'PS256' });
    await expectRefusedPage(
      await t.gatehouse.fetch(authorize({ client_id: 'signer', request: await requestObject(t, key) })),
    );
  });

  it('accepts an unsigned object only where the instance and the client’s registration both allow it', async () => {
    const key = await keyPair('k1');
    const unsignedObject = (t: JarInstance) => {
      const now = Math.floor(t.clock.now() / 1000);
      return new UnsecuredJWT({
        ...PARAMETERS,
        iss: 'unsigned',
        aud: ISSUER,
        exp: now + 60,
        jti: crypto.randomUUID(),
      })
        .setIssuedAt(now)
        .encode();
    };
    const closed = await jarInstance(key);
    await expectRefusedPage(
      await closed.gatehouse.fetch(authorize({ client_id: 'unsigned', request: unsignedObject(closed) })),
    );
    const open = await jarInstance(key, { requestObjects: { allowUnsigned: true } });
    // jose's UnsecuredJWT has no typ: RFC 9101's explicit typing is required of unsigned objects too.
    await expectRefusedPage(
      await open.gatehouse.fetch(authorize({ client_id: 'unsigned', request: unsignedObject(open) })),
    );
    const now = Math.floor(open.clock.now() / 1000);
    const typed = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'oauth-authz-req+jwt' })).toString('base64url')}.${Buffer.from(
      JSON.stringify({ ...PARAMETERS, iss: 'unsigned', aud: ISSUER, exp: now + 60, jti: 'typed' }),
    ).toString('base64url')}.`;
    expect(toLogin(await open.gatehouse.fetch(authorize({ client_id: 'unsigned', request: typed })))).toBe(
      true,
    );
    // A client with keys is not registered for unsigned objects.
    const signerTyped = typed.replace(
      /\.[^.]*\.$/,
      `.${Buffer.from(JSON.stringify({ ...PARAMETERS, iss: 'signer', aud: ISSUER, exp: now + 60, jti: 's' })).toString('base64url')}.`,
    );
    await expectRefusedPage(
      await open.gatehouse.fetch(authorize({ client_id: 'signer', request: signerTyped })),
    );
  });
});

describe('signed request objects (RFC 9101): required, and pushed', () => {
  it('refuses a plain request of a client that must sign, at the authorization and PAR endpoints', async () => {
    const key = await keyPair('k1');
    const t = await jarInstance(key);
    const plain = await t.gatehouse.fetch(authorize({ client_id: 'strict', ...PARAMETERS }));
    expect(plain.status).toBe(303);
    expect(new URL(plain.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
    const pushedPlain = await t.gatehouse.fetch(
      post('/oauth2/v1/par', PARAMETERS, { Authorization: basic('strict', 'signer-secret') }),
    );
    expect(pushedPlain.status).toBe(400);
    expect(((await pushedPlain.json()) as { error: string }).error).toBe('invalid_request');
    const signed = await t.gatehouse.fetch(
      authorize({ client_id: 'strict', request: await requestObject(t, key, 'strict') }),
    );
    expect(toLogin(signed)).toBe(true);
  });

  it('pushes a signed object: its parameters are the request; the authorize endpoint then takes the request_uri', async () => {
    const key = await keyPair('k1');
    const t = await jarInstance(key, { requestObjects: { required: true } });
    const pushed = await t.gatehouse.fetch(
      post(
        '/oauth2/v1/par',
        { request: await requestObject(t, key, 'strict') },
        { Authorization: basic('strict', 'signer-secret') },
      ),
    );
    expect(pushed.status).toBe(201);
    const { request_uri: requestUri } = (await pushed.json()) as { request_uri: string };
    const browser = new FakeBrowser(t.gatehouse);
    const page = await browser.get(
      `${ISSUER}/oauth2/v1/authorize?${new URLSearchParams({ client_id: 'strict', request_uri: requestUri })}`,
    );
    expect(page.status).toBe(200);
    const redirect = await browser.follow(
      await browser.submit(await page.text(), { username: 'demo', password: 'demo-password' }),
    );
    expect(callbackParams(redirect).get('state')).toBe('signed-state');
    // A broken object is refused by the PAR endpoint with a JSON 400.
    const broken = await t.gatehouse.fetch(
      post(
        '/oauth2/v1/par',
        { request: await requestObject(t, key, 'strict', { aud: 'https://elsewhere.example' }) },
        { Authorization: basic('strict', 'signer-secret') },
      ),
    );
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { error: string }).error).toBe('invalid_request_object');
  });

  it('carries authorization_details inside the object as JSON (RFC 9396 with RFC 9101)', async () => {
    const key = await keyPair('k1');
    const t = await jarInstance(key, {
      authorizationDetails: {
        types: { ticket_access: { validate: () => undefined, describe: () => 'Tickets' } },
      },
    });
    const details = [{ type: 'ticket_access', actions: ['read'] }];
    const browser = new FakeBrowser(t.gatehouse);
    const page = await browser.get(
      `${ISSUER}/oauth2/v1/authorize?${new URLSearchParams({
        client_id: 'signer',
        request: await requestObject(t, key, 'signer', { authorization_details: details }),
      })}`,
    );
    const redirect = await browser.follow(
      await browser.submit(await page.text(), { username: 'demo', password: 'demo-password' }),
    );
    const tokens = await t.gatehouse.fetch(
      post(
        '/oauth2/v1/token',
        {
          grant_type: 'authorization_code',
          code: callbackParams(redirect).get('code')!,
          redirect_uri: REDIRECT_URI,
          code_verifier: PKCE_VERIFIER,
        },
        { Authorization: basic('signer', 'signer-secret') },
      ),
    );
    expect(((await tokens.json()) as { authorization_details: unknown }).authorization_details).toEqual(
      details,
    );
  });

  it('lets a client registered by RFC 7591 require signed request objects for itself', async () => {
    const key = await keyPair('k1');
    const t = await jarInstance(key, { dynamicRegistration: {} });
    // Open registration makes public clients (no keys of their own): the metadata is kept and enforced.
    const registered = await t.gatehouse.fetch(
      new Request(`${ISSUER}/oauth2/v1/register`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          redirect_uris: [REDIRECT_URI],
          require_signed_request_object: true,
          request_object_signing_alg: 'ES256',
          authorization_details_types: ['ticket_access'],
        }),
      }),
    );
    expect(registered.status).toBe(201);
    const client = (await registered.json()) as { client_id: string };
    expect(client).toMatchObject({
      require_signed_request_object: true,
      request_object_signing_alg: 'ES256',
      authorization_details_types: ['ticket_access'],
    });
    const plain = await t.gatehouse.fetch(authorize({ client_id: client.client_id, ...PARAMETERS }));
    expect(plain.status).toBe(400); // a self-registered client's errors are shown, never redirected
    expect(await plain.text()).toContain('signed request objects');
    const refused = await t.gatehouse.fetch(
      new Request(`${ISSUER}/oauth2/v1/register`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [REDIRECT_URI], request_object_signing_alg: 'HS256' }),
      }),
    );
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toBe('invalid_client_metadata');
  });
});
