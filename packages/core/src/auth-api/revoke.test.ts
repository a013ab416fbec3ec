import type { GatehouseEvent } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { authApiToken, basic, bearerPost, issueTokens, post, testInstance } from '../../test/fixtures';

const PATH = '/auth/v1/token/revoke';
const INTROSPECT = '/auth/v1/token/introspect';

async function isActive(t: Awaited<ReturnType<typeof testInstance>>, token: string): Promise<boolean> {
  return (await (await t.gatehouse.fetch(bearerPost(INTROSPECT, token))).json()).active;
}

describe('POST /auth/v1/token/revoke', () => {
  it('lets a bearer revoke itself: 200, then the token is inactive', async () => {
    const t = await testInstance();
    const token = await authApiToken(t);
    expect(await isActive(t, token)).toBe(true);
    const response = await t.gatehouse.fetch(bearerPost(PATH, token));
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual({});
    expect(await isActive(t, token)).toBe(false);
  });

  it('makes REST operations refuse the token afterwards with 401 invalid_token', async () => {
    const t = await testInstance();
    const token = await authApiToken(t);
    const call = () =>
      t.gatehouse.authenticate(
        new Request(`${t.gatehouse.issuer}/api/v1/tickets`, {
          headers: { Authorization: `Bearer ${token}` },
        }),
        {
          schemes: ['bearer'],
        },
      );
    const before = await call();
    expect(before.ok && before.caller).toMatchObject({ sub: 'user-1', family: 'auth_api' });
    await t.gatehouse.fetch(bearerPost(PATH, token));
    const after = await call();
    expect(after.ok).toBe(false);
    if (after.ok) return;
    expect(after.response.status).toBe(401);
    expect(after.response.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
  });

  it('is idempotent', async () => {
    const t = await testInstance();
    const token = await authApiToken(t);
    for (let i = 0; i < 3; i++) expect((await t.gatehouse.fetch(bearerPost(PATH, token))).status).toBe(200);
    expect(await isActive(t, token)).toBe(false);
  });

  it('revokes only the presented token, not the user’s other tokens', async () => {
    const t = await testInstance();
    const first = await authApiToken(t);
    const second = await authApiToken(t);
    await t.gatehouse.fetch(bearerPost(PATH, first));
    expect(await isActive(t, first)).toBe(false);
    expect(await isActive(t, second)).toBe(true);
  });

  it('keeps the token on the revocation list until it would have expired', async () => {
    const t = await testInstance();
    const token = await authApiToken(t);
    await t.gatehouse.fetch(bearerPost(PATH, token));
    t.clock.advance(86_400 - 1);
    expect(await isActive(t, token)).toBe(false);
  });

  it('answers 200 for an expired or unknown token, changing nothing', async () => {
    const t = await testInstance();
    const token = await authApiToken(t);
    expect((await t.gatehouse.fetch(bearerPost(PATH, 'not-a-token'))).status).toBe(200);
    t.clock.advance(86_400 + 60);
    expect((await t.gatehouse.fetch(bearerPost(PATH, token))).status).toBe(200);
  });

  it('lets a confidential client revoke an Auth API token named in the form', async () => {
    const events: GatehouseEvent[] = [];
    const t = await testInstance({ onEvent: (event) => events.push(event) });
    const token = await authApiToken(t);
    const response = await t.gatehouse.fetch(
      post(PATH, { token }, { Authorization: basic('demo-client', 'demo-secret') }),
    );
    expect(response.status).toBe(200);
    expect(await isActive(t, token)).toBe(false);
    expect(events.at(-1)).toEqual({ type: 'token.revoked', clientId: 'demo-client', kind: 'access_token' });
  });

  it('leaves OAuth 2.0 tokens named by a client untouched (they belong to /oauth2/v1/revoke)', async () => {
    const t = await testInstance();
    const { access_token } = await issueTokens(t);
    const response = await t.gatehouse.fetch(
      post(PATH, { token: access_token }, { Authorization: basic('other-client', 'other-secret') }),
    );
    expect(response.status).toBe(200);
    expect(await isActive(t, access_token)).toBe(true);
  });

  it('lets an OAuth 2.0 access token give itself up', async () => {
    const t = await testInstance();
    const { access_token } = await issueTokens(t);
    await t.gatehouse.fetch(bearerPost(PATH, access_token));
    expect(await isActive(t, access_token)).toBe(false);
  });

  it('refuses a client with a wrong secret and revokes nothing', async () => {
    const t = await testInstance();
    const token = await authApiToken(t);
    const response = await t.gatehouse.fetch(
      post(PATH, { token }, { Authorization: basic('demo-client', 'wrong') }),
    );
    expect(response.status).toBe(401);
    expect((await response.json()).error).toBe('invalid_client');
    expect(await isActive(t, token)).toBe(true);
  });

  it('refuses a request without credentials with 401 and revokes nothing', async () => {
    const t = await testInstance();
    const token = await authApiToken(t);
    const response = await t.gatehouse.fetch(post(PATH, { token }));
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm=.*, Basic realm=/);
    expect(await isActive(t, token)).toBe(true);
  });

  it('refuses a body next to a bearer token with 400 and revokes nothing', async () => {
    const t = await testInstance();
    const token = await authApiToken(t);
    const response = await t.gatehouse.fetch(post(PATH, { token }, { Authorization: `Bearer ${token}` }));
    expect(response.status).toBe(400);
    expect(await isActive(t, token)).toBe(true);
  });
});
