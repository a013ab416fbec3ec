import {
  type ClientRecord,
  type ClientStore,
  ConfigurationError,
  memoryClientStore,
} from '@gatehousejs/core';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { authorizeUrl, callbackParams, FakeBrowser, logIn } from '../../../test/browser-flow';
import { dpopKey, dpopProof } from '../../../test/dpop';
import {
  basic,
  ISSUER,
  PKCE_CHALLENGE,
  PKCE_VERIFIER,
  post,
  REDIRECT_URI,
  type TestInstance,
  type TestOptions,
  testClients,
  testInstance,
} from '../../../test/fixtures';

const FAPI = { securityProfile: 'fapi2' } as const;
const REQUEST = {
  response_type: 'code',
  redirect_uri: REDIRECT_URI,
  scope: 'read',
  state: 'fapi',
  code_challenge: PKCE_CHALLENGE,
  code_challenge_method: 'S256',
};

async function fapiInstance(options: TestOptions = FAPI, others?: ClientRecord[]) {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
  const t = await testInstance({
    ...options,
    clients: memoryClientStore([
      ...(others ?? (await testClients())),
      {
        id: 'fapi-client',
        type: 'confidential',
        tokenEndpointAuthMethod: 'private_key_jwt',
        jwks: { keys: [jwk] },
        redirectUris: [REDIRECT_URI],
        firstParty: true,
      },
    ]),
  });
  const assertion = (audience: string | string[], aheadSeconds: number) => {
    const issuedAt = Math.floor(t.clock.now() / 1000) + aheadSeconds;
    return new SignJWT({ jti: crypto.randomUUID(), nbf: issuedAt })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer('fapi-client')
      .setSubject('fapi-client')
      .setAudience(audience)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + 60)
      .sign(privateKey);
  };
  const clientAuth = async (audience: string | string[] = ISSUER, aheadSeconds = 0) => ({
    client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    client_assertion: await assertion(audience, aheadSeconds),
  });
  return { ...t, clientAuth, jwk };
}

async function codeVia(t: TestInstance, requestUri: string, clientId: string) {
  const browser = new FakeBrowser(t.gatehouse);
  const url = `${ISSUER}/oauth2/v1/authorize?${new URLSearchParams({ client_id: clientId, request_uri: requestUri })}`;
  return callbackParams(await browser.follow(await logIn(browser, url))).get('code')!;
}

describe('the FAPI 2.0 security profile switch (securityProfile: "fapi2")', () => {
  it('requires pushed requests and lists only private_key_jwt and none in the metadata', async () => {
    const t = await fapiInstance();
    const metadata = await (
      await t.gatehouse.fetch(new Request(`${ISSUER}/.well-known/openid-configuration`))
    ).json();
    expect(metadata.require_pushed_authorization_requests).toBe(true);
    expect(metadata.token_endpoint_auth_methods_supported).toEqual(['private_key_jwt', 'none']);
    const plain = await t.gatehouse.fetch(new Request(authorizeUrl({ client_id: 'demo-spa' })));
    expect(callbackParams(plain).get('error')).toBe('invalid_request');
  });

  it('refuses options that contradict it', async () => {
    await expect(testInstance({ ...FAPI, requirePkce: 'public' })).rejects.toThrow(ConfigurationError);
    await expect(testInstance({ ...FAPI, pushedAuthorizationRequests: { required: false } })).rejects.toThrow(
      /pushedAuthorizationRequests.required/,
    );
    await expect(testInstance({ ...FAPI, authorizationCodeTtl: 120 })).rejects.toThrow(
      /authorizationCodeTtl/,
    );
  });

  it('refuses client secrets: a client_secret_basic client gets 401 invalid_client at PAR', async () => {
    const t = await fapiInstance();
    const response = await t.gatehouse.fetch(
      post('/oauth2/v1/par', REQUEST, { Authorization: basic('demo-client', 'demo-secret') }),
    );
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_client');
  });

  it('runs a private_key_jwt client through PAR and a DPoP-bound code exchange, refusing one without DPoP', async () => {
    const t = await fapiInstance();
    const pushed = await t.gatehouse.fetch(post('/oauth2/v1/par', { ...REQUEST, ...(await t.clientAuth()) }));
    expect(pushed.status).toBe(201);
    const code = await codeVia(
      t,
      ((await pushed.json()) as { request_uri: string }).request_uri,
      'fapi-client',
    );
    const form = async () => ({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: PKCE_VERIFIER,
      ...(await t.clientAuth()),
    });
    const bearer = await t.gatehouse.fetch(post('/oauth2/v1/token', await form()));
    expect(bearer.status).toBe(400);
    expect(((await bearer.json()) as { error: string }).error).toBe('invalid_request');
    const key = await dpopKey();
    const bound = await t.gatehouse.fetch(
      post('/oauth2/v1/token', await form(), {
        DPoP: await dpopProof(key, 'POST', `${ISSUER}/oauth2/v1/token`, t.clock.now()),
      }),
    );
    expect(bound.status).toBe(200);
    expect(((await bound.json()) as { token_type: string }).token_type).toBe('DPoP');
  });

  it('keeps public clients, DPoP-bound, with PKCE', async () => {
    const t = await fapiInstance();
    const pushed = await t.gatehouse.fetch(post('/oauth2/v1/par', { ...REQUEST, client_id: 'demo-spa' }));
    expect(pushed.status).toBe(201);
    const code = await codeVia(t, ((await pushed.json()) as { request_uri: string }).request_uri, 'demo-spa');
    const key = await dpopKey();
    const response = await t.gatehouse.fetch(
      post(
        '/oauth2/v1/token',
        {
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT_URI,
          code_verifier: PKCE_VERIFIER,
          client_id: 'demo-spa',
        },
        { DPoP: await dpopProof(key, 'POST', `${ISSUER}/oauth2/v1/token`, t.clock.now()) },
      ),
    );
    expect(((await response.json()) as { token_type: string }).token_type).toBe('DPoP');
  });

  it('takes client assertions whose iat and nbf are up to 10 s ahead, and refuses an array as their aud (§5.3.2.1)', async () => {
    const t = await fapiInstance();
    const push = async (auth: Record<string, string>) =>
      (await t.gatehouse.fetch(post('/oauth2/v1/par', { ...REQUEST, ...auth }))).status;
    expect(await push(await t.clientAuth(ISSUER, 8))).toBe(201);
    expect(await push(await t.clientAuth(ISSUER, 10))).toBe(201);
    expect(await push(await t.clientAuth(ISSUER, 20))).toBe(401);
    expect(await push(await t.clientAuth([ISSUER]))).toBe(401);
  });

  it('takes client assertions for the issuer only, the redirect_uri always, no Auth API, no rotation', async () => {
    const t = await fapiInstance();
    const forEndpoint = await t.gatehouse.fetch(
      post('/oauth2/v1/par', { ...REQUEST, ...(await t.clientAuth(`${ISSUER}/oauth2/v1/par`)) }),
    );
    expect(forEndpoint.status).toBe(401);
    const { redirect_uri: _omitted, ...withoutRedirect } = REQUEST;
    const noRedirect = await t.gatehouse.fetch(
      post('/oauth2/v1/par', { ...withoutRedirect, ...(await t.clientAuth()) }),
    );
    expect(noRedirect.status).toBe(400);
    const authApi = await t.gatehouse.fetch(new Request(`${ISSUER}/auth/v1/token`, { method: 'POST' }));
    expect(authApi.status).toBe(404);
    const pushed = await t.gatehouse.fetch(post('/oauth2/v1/par', { ...REQUEST, client_id: 'demo-spa' }));
    const code = await codeVia(t, ((await pushed.json()) as { request_uri: string }).request_uri, 'demo-spa');
    const key = await dpopKey();
    const proof = () => dpopProof(key, 'POST', `${ISSUER}/oauth2/v1/token`, t.clock.now());
    const tokens = (await (
      await t.gatehouse.fetch(
        post(
          '/oauth2/v1/token',
          {
            grant_type: 'authorization_code',
            code,
            redirect_uri: REDIRECT_URI,
            code_verifier: PKCE_VERIFIER,
            client_id: 'demo-spa',
          },
          { DPoP: await proof() },
        ),
      )
    ).json()) as { refresh_token: string };
    const refreshed = (await (
      await t.gatehouse.fetch(
        post(
          '/oauth2/v1/token',
          { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: 'demo-spa' },
          { DPoP: await proof() },
        ),
      )
    ).json()) as { refresh_token?: string; token_type: string };
    expect(refreshed.token_type).toBe('DPoP');
    expect(refreshed.refresh_token).toBeUndefined();
  });
});

describe('the strict FAPI 2.0 profile (securityProfile: "fapi2-strict"): confidential clients only', () => {
  const STRICT = { securityProfile: 'fapi2-strict' } as const;
  const confidentialOnly = async () =>
    (await testClients()).filter((client) => client.type === 'confidential');

  it('refuses a public client of the host at construction, naming it', async () => {
    const clients = await testClients();
    const index = clients.findIndex((client) => client.id === 'demo-spa');
    const made = testInstance({ ...STRICT, clients: memoryClientStore(clients) });
    await expect(made).rejects.toThrow(ConfigurationError);
    await expect(made).rejects.toThrow(`clients[${index}]: the client "demo-spa" is public`);
  });

  it('refuses anonymous registration at construction', async () => {
    await expect(
      testInstance({
        ...STRICT,
        clients: memoryClientStore(await confidentialOnly()),
        dynamicRegistration: {},
      }),
    ).rejects.toThrow(
      /^dynamicRegistration\.initialAccessToken: the securityProfile "fapi2-strict" allows no anonymous registration/,
    );
  });

  it('lists only private_key_jwt, and refuses a public client of another store with 401 invalid_client', async () => {
    const t = await fapiInstance(STRICT, await confidentialOnly());
    const metadata = await (
      await t.gatehouse.fetch(new Request(`${ISSUER}/.well-known/oauth-authorization-server`))
    ).json();
    expect(metadata.token_endpoint_auth_methods_supported).toEqual(['private_key_jwt']);
    expect(
      (await t.gatehouse.fetch(post('/oauth2/v1/par', { ...REQUEST, ...(await t.clientAuth()) }))).status,
    ).toBe(201);
    // A store that cannot be listed at construction (a database's): its public client is refused when it comes.
    const spa = (await testClients()).find((client) => client.id === 'demo-spa')!;
    const database: ClientStore = { findClient: async (id) => (id === 'demo-spa' ? spa : null) };
    const u = await testInstance({ ...STRICT, clients: database });
    const response = await u.gatehouse.fetch(post('/oauth2/v1/par', { ...REQUEST, client_id: 'demo-spa' }));
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_client');
  });

  it('registers private_key_jwt clients only, with the initial access token (invalid_client_metadata otherwise)', async () => {
    const token = 'initial-access-token-0123456789';
    const t = await fapiInstance(
      { ...STRICT, dynamicRegistration: { initialAccessToken: token } },
      await confidentialOnly(),
    );
    const register = (metadata: Record<string, unknown>) =>
      t.gatehouse.fetch(
        new Request(`${ISSUER}/oauth2/v1/register`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
          body: JSON.stringify({ redirect_uris: [REDIRECT_URI], ...metadata }),
        }),
      );
    for (const method of [undefined, 'none', 'client_secret_basic']) {
      const response = await register(method === undefined ? {} : { token_endpoint_auth_method: method });
      expect({
        method,
        status: response.status,
        error: ((await response.json()) as { error: string }).error,
      }).toEqual({
        method,
        status: 400,
        error: 'invalid_client_metadata',
      });
    }
    const registered = await register({
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [t.jwk] },
    });
    expect(registered.status).toBe(201);
    expect(await registered.json()).toMatchObject({ token_endpoint_auth_method: 'private_key_jwt' });
  });
});
