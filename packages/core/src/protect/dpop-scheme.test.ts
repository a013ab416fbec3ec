import { defineOperations } from '@gatehousejs/core/protect';
import { describe, expect, it } from 'vitest';
import { ath, type DpopTestKey, dpopKey, dpopProof } from '../../test/dpop';
import {
  basic,
  ISSUER,
  mintCode,
  PKCE_VERIFIER,
  post,
  REDIRECT_URI,
  type TestInstance,
  testInstance,
} from '../../test/fixtures';

const TOKEN = `${ISSUER}/oauth2/v1/token`;
const USERINFO = `${ISSUER}/oauth2/v1/userinfo`;
const API = `${ISSUER}/api/v1/tickets`;

/** A DPoP-bound access token of demo-client for `key` (scope openid profile read). */
async function boundToken(t: TestInstance, key: DpopTestKey): Promise<string> {
  const code = await mintCode(t, { scope: 'openid profile read' });
  const response = await t.gatehouse.fetch(
    post(
      '/oauth2/v1/token',
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: PKCE_VERIFIER },
      {
        Authorization: basic('demo-client', 'demo-secret'),
        DPoP: await dpopProof(key, 'POST', TOKEN, t.clock.now()),
      },
    ),
  );
  const body = (await response.json()) as { access_token: string; token_type: string };
  expect(body.token_type).toBe('DPoP');
  return body.access_token;
}

async function dpopGet(
  t: TestInstance,
  url: string,
  token: string,
  key: DpopTestKey,
  claims: Record<string, unknown> = {},
  scheme = 'DPoP',
) {
  const proof = await dpopProof(key, 'GET', url, t.clock.now(), { ath: await ath(token), ...claims });
  return t.gatehouse.fetch(
    new Request(url, { headers: { Authorization: `${scheme} ${token}`, DPoP: proof } }),
  );
}

function withApi(t: TestInstance) {
  return defineOperations(t.gatehouse, {
    'GET /api/v1/tickets': {
      schemes: ['bearer'],
      scope: 'read',
      handler: (_request, caller) => Response.json({ sub: caller.sub, jkt: caller.dpopJkt }),
    },
    'GET /api/v1/tickets/admin': {
      schemes: ['bearer'],
      scope: 'admin',
      handler: () => Response.json({}),
    },
  });
}

describe('DPoP at resource servers (RFC 9449 §7)', () => {
  it('accepts a bound token with the DPoP scheme and a proof with ath, at userinfo', async () => {
    const t = await testInstance();
    const key = await dpopKey();
    const token = await boundToken(t, key);
    const response = await dpopGet(t, USERINFO, token, key);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ sub: 'user-1', name: 'Demo User' });
  });

  it('accepts it at defineOperations and gatehouse.authenticate, telling the caller the key', async () => {
    const t = await testInstance();
    const key = await dpopKey();
    const token = await boundToken(t, key);
    const api = withApi(t);
    const response = await api(
      new Request(API, {
        headers: {
          Authorization: `DPoP ${token}`,
          DPoP: await dpopProof(key, 'GET', API, t.clock.now(), { ath: await ath(token) }),
        },
      }),
    );
    expect(response?.status).toBe(200);
    expect(await response?.json()).toEqual({ sub: 'user-1', jkt: key.jkt });
    const result = await t.gatehouse.authenticate(
      new Request(API, {
        method: 'POST',
        headers: {
          Authorization: `dpop ${token}`,
          DPoP: await dpopProof(key, 'POST', API, t.clock.now(), { ath: await ath(token) }),
        },
      }),
      { schemes: ['bearer'] },
    );
    expect(result.ok).toBe(true);
  });

  it('refuses a bound token presented as Bearer, challenging with DPoP', async () => {
    const t = await testInstance();
    const key = await dpopKey();
    const token = await boundToken(t, key);
    const response = await t.gatehouse.fetch(
      new Request(USERINFO, { headers: { Authorization: `Bearer ${token}` } }),
    );
    expect(response.status).toBe(401);
    const challenge = response.headers.get('www-authenticate')!;
    expect(challenge).toMatch(/^Bearer realm=/);
    expect(challenge).toMatch(
      /DPoP realm="[^"]+", error="invalid_token", error_description="[^"]+", algs="ES256[^"]*"/,
    );
    // Even with a valid proof beside it.
    const withProof = await dpopGet(t, USERINFO, token, key, {}, 'Bearer');
    expect(withProof.status).toBe(401);
  });

  const proofRefusals: [
    string,
    (t: TestInstance, token: string, key: DpopTestKey) => Promise<Record<string, string>>,
  ][] = [
    ['no proof', async () => ({})],
    [
      'a proof without ath',
      async (t, _token, key) => ({ DPoP: await dpopProof(key, 'GET', USERINFO, t.clock.now()) }),
    ],
    [
      'a proof with the ath of another token',
      async (t, _token, key) => ({
        DPoP: await dpopProof(key, 'GET', USERINFO, t.clock.now(), { ath: await ath('other') }),
      }),
    ],
    [
      'a proof of another key',
      async (t, token) => ({
        DPoP: await dpopProof(await dpopKey(), 'GET', USERINFO, t.clock.now(), { ath: await ath(token) }),
      }),
    ],
    [
      'a wrong htm',
      async (t, token, key) => ({
        DPoP: await dpopProof(key, 'POST', USERINFO, t.clock.now(), { ath: await ath(token) }),
      }),
    ],
    [
      'a wrong htu',
      async (t, token, key) => ({
        DPoP: await dpopProof(key, 'GET', TOKEN, t.clock.now(), { ath: await ath(token) }),
      }),
    ],
    [
      'an old iat',
      async (t, token, key) => ({
        DPoP: await dpopProof(key, 'GET', USERINFO, t.clock.now() - 120_000, { ath: await ath(token) }),
      }),
    ],
  ];
  for (const [name, headers] of proofRefusals) {
    it(`refuses ${name}: 401 invalid_dpop_proof with a DPoP challenge naming algs`, async () => {
      const t = await testInstance();
      const key = await dpopKey();
      const token = await boundToken(t, key);
      const response = await t.gatehouse.fetch(
        new Request(USERINFO, {
          headers: { Authorization: `DPoP ${token}`, ...(await headers(t, token, key)) },
        }),
      );
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(
        /^DPoP realm="[^"]+", error="invalid_dpop_proof", .*algs="/,
      );
      expect(((await response.json()) as { error: string }).error).toBe('invalid_dpop_proof');
    });
  }

  it('refuses a replayed proof', async () => {
    const t = await testInstance();
    const key = await dpopKey();
    const token = await boundToken(t, key);
    const proof = await dpopProof(key, 'GET', USERINFO, t.clock.now(), { ath: await ath(token) });
    const send = () =>
      t.gatehouse.fetch(new Request(USERINFO, { headers: { Authorization: `DPoP ${token}`, DPoP: proof } }));
    expect((await send()).status).toBe(200);
    expect((await send()).status).toBe(401);
  });

  it('refuses a bearer token (not bound) presented with the DPoP scheme, as invalid_token', async () => {
    const t = await testInstance();
    const key = await dpopKey();
    const code = await mintCode(t, { scope: 'openid read' });
    const plain = await t.gatehouse.fetch(
      post(
        '/oauth2/v1/token',
        { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: PKCE_VERIFIER },
        { Authorization: basic('demo-client', 'demo-secret') },
      ),
    );
    const token = ((await plain.json()) as { access_token: string }).access_token;
    const response = await dpopGet(t, USERINFO, token, key);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^DPoP realm="[^"]+", error="invalid_token"/);
    // And as Bearer it still works: the plain bearer path is unchanged.
    const bearer = await t.gatehouse.fetch(
      new Request(USERINFO, { headers: { Authorization: `Bearer ${token}` } }),
    );
    expect(bearer.status).toBe(200);
  });

  it('answers a missing scope 403 insufficient_scope with a DPoP challenge', async () => {
    const t = await testInstance();
    const key = await dpopKey();
    const token = await boundToken(t, key);
    const api = withApi(t);
    const url = `${API}/admin`;
    const response = await api(
      new Request(url, {
        headers: {
          Authorization: `DPoP ${token}`,
          DPoP: await dpopProof(key, 'GET', url, t.clock.now(), { ath: await ath(token) }),
        },
      }),
    );
    expect(response?.status).toBe(403);
    expect(response?.headers.get('www-authenticate')).toMatch(
      /^DPoP realm="[^"]+", error="insufficient_scope"/,
    );
  });

  it('requires the server nonce at resource servers with requireNonce "all"', async () => {
    const t = await testInstance({ dpop: { requireNonce: 'all' } });
    const key = await dpopKey();
    const first = await t.gatehouse.fetch(
      post(
        '/oauth2/v1/token',
        {
          grant_type: 'authorization_code',
          code: await mintCode(t, { scope: 'openid' }),
          redirect_uri: REDIRECT_URI,
          code_verifier: PKCE_VERIFIER,
        },
        {
          Authorization: basic('demo-client', 'demo-secret'),
          DPoP: await dpopProof(key, 'POST', TOKEN, t.clock.now()),
        },
      ),
    );
    expect(first.status).toBe(400);
    const nonce = first.headers.get('dpop-nonce')!;
    const tokens = await t.gatehouse.fetch(
      post(
        '/oauth2/v1/token',
        {
          grant_type: 'authorization_code',
          code: await mintCode(t, { scope: 'openid' }),
          redirect_uri: REDIRECT_URI,
          code_verifier: PKCE_VERIFIER,
        },
        {
          Authorization: basic('demo-client', 'demo-secret'),
          DPoP: await dpopProof(key, 'POST', TOKEN, t.clock.now(), { nonce }),
        },
      ),
    );
    const token = ((await tokens.json()) as { access_token: string }).access_token;
    const without = await dpopGet(t, USERINFO, token, key);
    expect(without.status).toBe(401);
    expect(without.headers.get('www-authenticate')).toMatch(/error="use_dpop_nonce"/);
    const rsNonce = without.headers.get('dpop-nonce')!;
    expect(rsNonce).toBeTruthy();
    expect((await dpopGet(t, USERINFO, token, key, { nonce: rsNonce })).status).toBe(200);
  });
});
