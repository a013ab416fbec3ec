import { type ClaimsRequest, generateKeys, type PrivateJwk } from '@gatehousejs/core';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  basic,
  ISSUER,
  mintCode,
  PKCE_VERIFIER,
  post,
  REDIRECT_URI,
  type TestInstance,
  testInstance,
  testKey,
} from '../../test/fixtures';

/*
 * The `claims` hook (issue 29, item 5): the host's claims reach ID tokens, userinfo and access
 * tokens per client, scope and resource; protocol claims stay Gatehouse's.
 */

let rsa: PrivateJwk;
beforeAll(async () => {
  rsa = await generateKeys('RS256');
});

async function exchange(t: TestInstance, scope: string) {
  const code = await mintCode(t, { scope });
  const response = await t.gatehouse.fetch(
    post(
      '/oauth2/v1/token',
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: PKCE_VERIFIER },
      { Authorization: basic('demo-client', 'demo-secret') },
    ),
  );
  return response;
}

describe('the claims hook', () => {
  it('adds the host’s claims to the ID token, userinfo and the access token, per target, client and scope', async () => {
    const asked: ClaimsRequest[] = [];
    const warnings: string[] = [];
    const t = await testInstance({
      keys: [await testKey(), rsa],
      logger: { warn: (m) => warnings.push(m), error() {} },
      claims: (request) => {
        asked.push(request);
        const common = { tenant: 't-1', sub: 'someone-else', iss: 'https://evil.example', scope: 'admin' };
        if (request.target === 'access_token')
          return {
            ...common,
            roles: request.scopes.includes('read') ? ['reader'] : [],
            client_id: 'x',
            cnf: {},
          };
        if (request.target === 'id_token') return { ...common, plan: 'gold', acr: 'forged', nonce: 'n' };
        return { ...common, plan: 'gold', client: request.clientId };
      },
    });
    const response = await exchange(t, 'openid profile read');
    expect(response.status).toBe(200);
    const set = (await response.json()) as { access_token: string; id_token: string };
    const access = decodeJwt(set.access_token);
    expect(access).toMatchObject({
      tenant: 't-1',
      roles: ['reader'],
      sub: 'user-1',
      iss: ISSUER,
      scope: 'openid profile read',
      client_id: 'demo-client',
    });
    expect(access.cnf).toBeUndefined();
    const id = decodeJwt(set.id_token);
    expect(id).toMatchObject({ tenant: 't-1', plan: 'gold', name: 'Demo User', sub: 'user-1', iss: ISSUER });
    expect(id.acr).toBeUndefined();
    expect(id.nonce).toBeUndefined();
    expect(id.scope).toBeUndefined();

    // The access token still passes the bearer check, and userinfo gets the hook's claims too.
    const userinfo = await t.gatehouse.fetch(
      new Request(`${ISSUER}/oauth2/v1/userinfo`, {
        headers: { Authorization: `Bearer ${set.access_token}` },
      }),
    );
    expect(userinfo.status).toBe(200);
    expect(await userinfo.json()).toEqual({
      sub: 'user-1',
      name: 'Demo User',
      tenant: 't-1',
      plan: 'gold',
      client: 'demo-client',
    });

    expect(asked.map((r) => r.target).sort()).toEqual(['access_token', 'id_token', 'userinfo']);
    expect(asked.find((r) => r.target === 'id_token')).toMatchObject({
      sub: 'user-1',
      subjectKind: 'user',
      clientId: 'demo-client',
      scopes: ['openid', 'profile', 'read'],
      user: { id: 'user-1' },
    });
    // Each reserved name is warned about once.
    expect(warnings.filter((w) => w.includes('"sub"'))).toHaveLength(1);
    expect(warnings.some((w) => w.includes('"cnf"'))).toBe(true);
  });

  it('refuses to mint an access token with more than 2,048 bytes of host claims, and answers 503 when the hook throws', async () => {
    const big = await testInstance({ claims: () => ({ blob: 'x'.repeat(3000) }) });
    const tooBig = await exchange(big, 'read');
    expect(tooBig.status).toBe(500);
    expect(await tooBig.json()).toMatchObject({ error: 'server_error' });

    const failing = await testInstance({
      claims: () => {
        throw new Error('directory down');
      },
    });
    const unavailable = await exchange(failing, 'read');
    expect(unavailable.status).toBe(503);
    expect(await unavailable.json()).toMatchObject({ error: 'temporarily_unavailable' });
  });

  it('is checked at creation', async () => {
    await expect(testInstance({ claims: {} as never })).rejects.toThrow(/^claims: expected a function/);
  });
});
