import { describe, expect, it } from 'vitest';
import { basic, issueTokens, post, testInstance } from '../../test/fixtures';

const DEMO_BASIC = { Authorization: basic('demo-client', 'demo-secret') };
const OTHER_BASIC = { Authorization: basic('other-client', 'other-secret') };

async function isActive(t: Awaited<ReturnType<typeof testInstance>>, token: string): Promise<boolean> {
  const response = await t.gatehouse.fetch(post('/oauth2/v1/introspect', { token }, DEMO_BASIC));
  return ((await response.json()) as { active: boolean }).active;
}

describe('revocation endpoint (RFC 7009)', () => {
  it('revokes an access token: 200, then inactive', async () => {
    const t = await testInstance();
    const { access_token, refresh_token } = await issueTokens(t);
    const response = await t.gatehouse.fetch(post('/oauth2/v1/revoke', { token: access_token }, DEMO_BASIC));
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await isActive(t, access_token)).toBe(false);
    // Revoking an access token leaves the grant (and its refresh token) alone.
    expect(await isActive(t, refresh_token)).toBe(true);
  });

  it('revoking a refresh token revokes the access tokens of its grant', async () => {
    const t = await testInstance();
    const { access_token, refresh_token } = await issueTokens(t);
    const response = await t.gatehouse.fetch(
      post('/oauth2/v1/revoke', { token: refresh_token, token_type_hint: 'refresh_token' }, DEMO_BASIC),
    );
    expect(response.status).toBe(200);
    expect(await isActive(t, refresh_token)).toBe(false);
    expect(await isActive(t, access_token)).toBe(false);
    const refresh = await t.gatehouse.fetch(
      post('/oauth2/v1/token', { grant_type: 'refresh_token', refresh_token }, DEMO_BASIC),
    );
    expect(refresh.status).toBe(400);
  });

  it('answers 200 for unknown tokens and treats token_type_hint as a hint only', async () => {
    const t = await testInstance();
    const { access_token } = await issueTokens(t);
    expect(
      (await t.gatehouse.fetch(post('/oauth2/v1/revoke', { token: 'unknown' }, DEMO_BASIC))).status,
    ).toBe(200);
    const hinted = await t.gatehouse.fetch(
      post('/oauth2/v1/revoke', { token: access_token, token_type_hint: 'refresh_token' }, DEMO_BASIC),
    );
    expect(hinted.status).toBe(200);
    expect(await isActive(t, access_token)).toBe(false);
    const odd = await t.gatehouse.fetch(
      post('/oauth2/v1/revoke', { token: 'x', token_type_hint: 'banana' }, DEMO_BASIC),
    );
    expect(odd.status).toBe(200);
  });

  it('is idempotent', async () => {
    const t = await testInstance();
    const { refresh_token } = await issueTokens(t);
    for (let i = 0; i < 3; i++) {
      expect(
        (await t.gatehouse.fetch(post('/oauth2/v1/revoke', { token: refresh_token }, DEMO_BASIC))).status,
      ).toBe(200);
    }
  });

  it("refuses to revoke another client's tokens with invalid_grant (RFC 7009 §2.1), leaving them active", async () => {
    const t = await testInstance();
    const { access_token, refresh_token } = await issueTokens(t);
    for (const token of [access_token, refresh_token]) {
      const response = await t.gatehouse.fetch(post('/oauth2/v1/revoke', { token }, OTHER_BASIC));
      expect(response.status).toBe(400);
      expect((await response.json()).error).toBe('invalid_grant');
      expect(await isActive(t, token)).toBe(true);
    }
  });

  it('requires client authentication and the token parameter', async () => {
    const t = await testInstance();
    const anonymous = await t.gatehouse.fetch(post('/oauth2/v1/revoke', { token: 'x' }));
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic /);
    const missing = await t.gatehouse.fetch(post('/oauth2/v1/revoke', {}, DEMO_BASIC));
    expect(missing.status).toBe(400);
    expect((await missing.json()).error).toBe('invalid_request');
  });
});
