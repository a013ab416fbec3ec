import { hashClientSecret, memoryClientStore } from '@gatehousejs/core';
import { decodeJwt, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { authorizeUrl, callbackParams, FakeBrowser, logIn } from '../../test/browser-flow';
import { type DpopTestKey, dpopKey, dpopProof } from '../../test/dpop';
import {
  basic,
  ISSUER,
  mintCode,
  PKCE_VERIFIER,
  post,
  REDIRECT_URI,
  type TestInstance,
  testClients,
  testInstance,
} from '../../test/fixtures';

const TOKEN = `${ISSUER}/oauth2/v1/token`;
const DEMO = basic('demo-client', 'demo-secret');

const b64 = (value: unknown) =>
  btoa(JSON.stringify(value)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

interface TokenBody {
  access_token: string;
  token_type: string;
  refresh_token?: string;
  error?: string;
  error_description?: string;
}

async function tokenRequest(
  t: TestInstance,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: TokenBody; response: Response }> {
  const response = await t.gatehouse.fetch(post('/oauth2/v1/token', form, headers));
  return { status: response.status, body: (await response.json()) as TokenBody, response };
}

/** Exchanges a fresh demo-client code, with `proof` as the DPoP header when given. */
async function codeExchange(t: TestInstance, proof?: string, clientId = 'demo-client') {
  const code = await mintCode(t, { clientId });
  const form: Record<string, string> = {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT_URI,
    code_verifier: PKCE_VERIFIER,
  };
  const headers: Record<string, string> = clientId === 'demo-client' ? { Authorization: DEMO } : {};
  if (clientId !== 'demo-client') form.client_id = clientId;
  if (proof !== undefined) headers.DPoP = proof;
  return tokenRequest(t, form, headers);
}

const tokenProof = (t: TestInstance, key: DpopTestKey, claims = {}, header = {}) =>
  dpopProof(key, 'POST', TOKEN, t.clock.now(), claims, header);

describe('DPoP at the token endpoint (RFC 9449 §5)', () => {
  it('advertises asymmetric proof algorithms only', async () => {
    const t = await testInstance();
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const metadata = await (await t.gatehouse.fetch(new Request(ISSUER + path))).json();
      const algs = metadata.dpop_signing_alg_values_supported as string[];
      expect(algs).toContain('ES256');
      expect(algs.some((alg) => alg === 'none' || alg.startsWith('HS'))).toBe(false);
    }
  });

  it('issues token_type DPoP with cnf.jkt in the access token and in introspection', async () => {
    const t = await testInstance();
    const key = await dpopKey();
    const { status, body } = await codeExchange(t, await tokenProof(t, key));
    expect(status).toBe(200);
    expect(body.token_type).toBe('DPoP');
    expect(decodeJwt(body.access_token).cnf).toEqual({ jkt: key.jkt });
    const introspection = await t.gatehouse.fetch(
      post('/oauth2/v1/introspect', { token: body.access_token }, { Authorization: DEMO }),
    );
    expect(await introspection.json()).toMatchObject({
      active: true,
      token_type: 'DPoP',
      cnf: { jkt: key.jkt },
    });
  });

  it('issues Bearer tokens without a proof, as before', async () => {
    const t = await testInstance();
    const { body } = await codeExchange(t);
    expect(body.token_type).toBe('Bearer');
    expect(decodeJwt(body.access_token).cnf).toBeUndefined();
  });

  it('accepts an htu that differs only by normalisation, query or fragment (§4.3)', async () => {
    const t = await testInstance();
    const key = await dpopKey();
    for (const htu of [
      'HTTP://LOCALHOST:80/demo/oauth2/v1/token'.replace(':80', ':3000'),
      `${TOKEN}?x=1#f`,
      'http://localhost:3000/demo/oauth2/v1/../v1/token',
    ]) {
      const { status } = await codeExchange(t, await dpopProof(key, 'POST', htu, t.clock.now()));
      expect(status).toBe(200);
    }
  });

  it('accepts an htu at the issuer origin when the server received the request at another host', async () => {
    const t = await testInstance();
    const key = await dpopKey();
    const code = await mintCode(t);
    const response = await t.gatehouse.fetch(
      new Request('http://127.0.0.1:3000/demo/oauth2/v1/token', {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          Authorization: DEMO,
          DPoP: await tokenProof(t, key),
        },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT_URI,
          code_verifier: PKCE_VERIFIER,
        }),
      }),
    );
    expect(response.status).toBe(200);
  });

  const refusals: [string, (t: TestInstance, key: DpopTestKey) => Promise<string>][] = [
    ['another typ', (t, key) => tokenProof(t, key, {}, { typ: 'JWT' })],
    ['no typ', (t, key) => tokenProof(t, key, {}, { typ: undefined })],
    [
      'alg none',
      async (t, key) =>
        `${b64({ alg: 'none', typ: 'dpop+jwt', jwk: key.jwk })}.${b64({ htm: 'POST', htu: TOKEN, iat: Math.floor(t.clock.now() / 1000), jti: 'x1' })}.`,
    ],
    [
      'alg HS256',
      (t, key) =>
        new SignJWT({ htm: 'POST', htu: TOKEN, iat: Math.floor(t.clock.now() / 1000), jti: 'x2' })
          .setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk: key.jwk })
          .sign(new Uint8Array(32)),
    ],
    ['an algorithm the instance does not accept', async (t) => tokenProof(t, await dpopKey('ES384'))],
    ['no jwk', (t, key) => tokenProof(t, key, {}, { jwk: undefined })],
    ['a private jwk', (t, key) => tokenProof(t, key, {}, { jwk: { ...key.jwk, d: 'AAAA' } })],
    ['a signature of another key', async (t, key) => tokenProof(t, await dpopKey(), {}, { jwk: key.jwk })],
    ['a wrong htm', (t, key) => tokenProof(t, key, { htm: 'GET' })],
    ['a wrong htu', (t, key) => tokenProof(t, key, { htu: `${ISSUER}/oauth2/v1/userinfo` })],
    [
      'an htu of another host',
      (t, key) => tokenProof(t, key, { htu: 'http://evil.example/demo/oauth2/v1/token' }),
    ],
    ['no htu', (t, key) => tokenProof(t, key, { htu: undefined })],
    ['an old iat', (t, key) => tokenProof(t, key, { iat: Math.floor(t.clock.now() / 1000) - 61 })],
    ['an iat in the future', (t, key) => tokenProof(t, key, { iat: Math.floor(t.clock.now() / 1000) + 61 })],
    ['no iat', (t, key) => tokenProof(t, key, { iat: undefined })],
    ['no jti', (t, key) => tokenProof(t, key, { jti: undefined })],
    ['a nonce the server did not issue', (t, key) => tokenProof(t, key, { nonce: 'forged' })],
    ['not a JWT', async () => 'not-a-jwt'],
  ];
  for (const [name, make] of refusals) {
    it(`refuses a proof with ${name}: 400 and no token`, async () => {
      const t = await testInstance();
      const { status, body } = await codeExchange(t, await make(t, await dpopKey()));
      expect(status).toBe(400);
      expect(['invalid_dpop_proof', 'use_dpop_nonce']).toContain(body.error);
      if (name.includes('nonce')) expect(body.error).toBe('use_dpop_nonce');
      else expect(body.error).toBe('invalid_dpop_proof');
      expect(body.access_token).toBeUndefined();
    });
  }

  it('refuses a replayed proof (jti single use) and two DPoP headers', async () => {
    const t = await testInstance();
    const key = await dpopKey();
    const proof = await tokenProof(t, key);
    expect((await codeExchange(t, proof)).status).toBe(200);
    const replay = await codeExchange(t, proof);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_dpop_proof');
    const code = await mintCode(t);
    const headers = new Headers({ Authorization: DEMO, 'Content-Type': 'application/x-www-form-urlencoded' });
    headers.append('DPoP', await tokenProof(t, key));
    headers.append('DPoP', await tokenProof(t, key));
    const twice = await t.gatehouse.fetch(
      new Request(TOKEN, {
        method: 'POST',
        headers,
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT_URI,
          code_verifier: PKCE_VERIFIER,
        }),
      }),
    );
    expect(twice.status).toBe(400);
    expect(((await twice.json()) as TokenBody).error).toBe('invalid_dpop_proof');
  });

  it("binds a public client's refresh token to its key: another key or none is invalid_grant", async () => {
    const t = await testInstance();
    const key = await dpopKey();
    const first = await codeExchange(t, await tokenProof(t, key), 'demo-spa');
    expect(first.status).toBe(200);
    const refresh = (proof?: string) =>
      tokenRequest(
        t,
        { grant_type: 'refresh_token', refresh_token: first.body.refresh_token!, client_id: 'demo-spa' },
        proof === undefined ? {} : { DPoP: proof },
      );
    const other = await refresh(await tokenProof(t, await dpopKey()));
    expect(other.status).toBe(400);
    expect(other.body.error).toBe('invalid_grant');
    const none = await refresh();
    expect(none.body.error).toBe('invalid_grant');
    const same = await refresh(await tokenProof(t, key));
    expect(same.status).toBe(200);
    expect(same.body.token_type).toBe('DPoP');
    expect(decodeJwt(same.body.access_token).cnf).toEqual({ jkt: key.jkt });
    // The rotated token is bound too.
    const next = await tokenRequest(
      t,
      { grant_type: 'refresh_token', refresh_token: same.body.refresh_token!, client_id: 'demo-spa' },
      { DPoP: await tokenProof(t, await dpopKey()) },
    );
    expect(next.body.error).toBe('invalid_grant');
  });

  it("leaves a confidential client's refresh token bound to its authentication only", async () => {
    const t = await testInstance();
    const first = await codeExchange(t, await tokenProof(t, await dpopKey()));
    const plain = await tokenRequest(
      t,
      { grant_type: 'refresh_token', refresh_token: first.body.refresh_token! },
      { Authorization: DEMO },
    );
    expect(plain.status).toBe(200);
    expect(plain.body.token_type).toBe('Bearer');
  });

  it('binds client credentials tokens too', async () => {
    const t = await testInstance({
      clients: memoryClientStore([
        ...(await testClients()),
        {
          id: 'service',
          type: 'confidential',
          secretHash: await hashClientSecret('service-secret'),
          redirectUris: [],
          grantTypes: ['client_credentials'],
        },
      ]),
    });
    const key = await dpopKey();
    const { body } = await tokenRequest(
      t,
      { grant_type: 'client_credentials' },
      { Authorization: basic('service', 'service-secret'), DPoP: await tokenProof(t, key) },
    );
    expect(body.token_type).toBe('DPoP');
    expect(decodeJwt(body.access_token).cnf).toEqual({ jkt: key.jkt });
  });

  it('requires a proof of a client registered with dpopBoundAccessTokens', async () => {
    const clients = await testClients();
    clients[0] = { ...clients[0]!, dpopBoundAccessTokens: true };
    const t = await testInstance({ clients: memoryClientStore(clients) });
    const without = await codeExchange(t);
    expect(without.status).toBe(400);
    expect(without.body.error).toBe('invalid_request');
    expect((await codeExchange(t, await tokenProof(t, await dpopKey()))).body.token_type).toBe('DPoP');
  });

  it('supports server nonces when configured: use_dpop_nonce with DPoP-Nonce, then success', async () => {
    const t = await testInstance({ dpop: { requireNonce: 'token' } });
    const key = await dpopKey();
    const first = await codeExchange(t, await tokenProof(t, key));
    expect(first.status).toBe(400);
    expect(first.body.error).toBe('use_dpop_nonce');
    const nonce = first.response.headers.get('dpop-nonce');
    expect(nonce).toBeTruthy();
    const second = await codeExchange(t, await tokenProof(t, key, { nonce }));
    expect(second.status).toBe(200);
    // A nonce lives one to two nonceLifetimes.
    t.clock.advance(601);
    const stale = await codeExchange(t, await tokenProof(t, key, { nonce }));
    expect(stale.body.error).toBe('use_dpop_nonce');
    expect(stale.response.headers.get('dpop-nonce')).not.toBe(nonce);
  });

  it('never requires a nonce by default', async () => {
    const t = await testInstance();
    expect((await codeExchange(t, await tokenProof(t, await dpopKey()))).status).toBe(200);
  });
});

describe('dpop_jkt binds the authorization code (RFC 9449 §10)', () => {
  async function boundCode(t: TestInstance, query: Record<string, string>) {
    const browser = new FakeBrowser(t.gatehouse);
    const redirect = await browser.follow(await logIn(browser, authorizeUrl(query)));
    return callbackParams(redirect).get('code')!;
  }
  const exchange = (t: TestInstance, code: string, proof?: string) =>
    tokenRequest(
      t,
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: PKCE_VERIFIER },
      { Authorization: DEMO, ...(proof === undefined ? {} : { DPoP: proof }) },
    );

  it('at the authorization endpoint: only a proof of that key redeems the code', async () => {
    const t = await testInstance();
    const key = await dpopKey();
    const code = await boundCode(t, { dpop_jkt: key.jkt });
    expect((await exchange(t, code)).body.error).toBe('invalid_grant');
    expect((await exchange(t, code, await tokenProof(t, await dpopKey()))).body.error).toBe('invalid_grant');
    const ok = await exchange(t, code, await tokenProof(t, key));
    expect(ok.status).toBe(200);
    expect(decodeJwt(ok.body.access_token).cnf).toEqual({ jkt: key.jkt });
  });

  it('refuses a dpop_jkt that is no thumbprint', async () => {
    const t = await testInstance();
    const response = await t.gatehouse.fetch(new Request(authorizeUrl({ dpop_jkt: 'short' })));
    expect(callbackParams(response).get('error')).toBe('invalid_request');
  });

  it('in a pushed request, by dpop_jkt or by a DPoP proof of the push', async () => {
    const t = await testInstance();
    const key = await dpopKey();
    const parUrl = `${ISSUER}/oauth2/v1/par`;
    const form = {
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      scope: 'read',
      code_challenge: new URL(authorizeUrl()).searchParams.get('code_challenge')!,
      code_challenge_method: 'S256',
    };
    const pushWith = async (headers: Record<string, string>, extra: Record<string, string> = {}) => {
      const response = await t.gatehouse.fetch(
        post('/oauth2/v1/par', { ...form, ...extra }, { Authorization: DEMO, ...headers }),
      );
      return {
        status: response.status,
        body: (await response.json()) as { request_uri: string; error?: string },
      };
    };
    const mismatch = await pushWith(
      { DPoP: await dpopProof(key, 'POST', parUrl, t.clock.now()) },
      { dpop_jkt: (await dpopKey()).jkt },
    );
    expect(mismatch.status).toBe(400);
    const pushed = await pushWith({ DPoP: await dpopProof(key, 'POST', parUrl, t.clock.now()) });
    expect(pushed.status).toBe(201);
    const code = await boundCode(t, { request_uri: pushed.body.request_uri });
    expect((await exchange(t, code, await tokenProof(t, await dpopKey()))).body.error).toBe('invalid_grant');
    expect((await exchange(t, code, await tokenProof(t, key))).status).toBe(200);
  });
});
