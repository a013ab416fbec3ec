import { generateKeys, memoryUserStore } from '@gatehousejs/core';
import type { AuthenticateOptions } from '@gatehousejs/core/protect';
import { importJWK, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { basic, ISSUER, post, testKey } from '../../test/fixtures';
import { apiPost, protectInstance, signWithInstanceKey } from '../../test/protect-fixtures';

const BEARER: AuthenticateOptions = { schemes: ['bearer'] };
const GENERIC = 'The access token is invalid, expired or revoked.';

type Instance = Awaited<ReturnType<typeof protectInstance>>;

/** The `invalid_token` description of the bearer check, checked to be the same in body and challenge. */
async function descriptionFor(t: Instance, token: string): Promise<string> {
  const result = await t.gatehouse.authenticate(apiPost({ Authorization: `Bearer ${token}` }), BEARER);
  if (result.ok) throw new Error('expected a refusal');
  expect(result.response.status).toBe(401);
  const body = (await result.response.json()) as { error: string; error_description: string };
  expect(body.error).toBe('invalid_token');
  expect(result.response.headers.get('www-authenticate')).toContain(
    `error="invalid_token", error_description="${body.error_description}"`,
  );
  return body.error_description;
}

/** Claims of a well-formed OAuth access token of the instance, valid for an hour from `t`'s clock. */
function claims(t: Instance, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Math.floor(t.clock.now() / 1000);
  return {
    iss: ISSUER,
    sub: 'user-1',
    aud: `${ISSUER}/api/v1`,
    iat: now,
    exp: now + 3600,
    jti: crypto.randomUUID(),
    token_family: 'oauth2',
    client_id: 'demo-client',
    scope: 'read',
    ...overrides,
  };
}

describe('invalid_token descriptions', () => {
  it('says a token has expired, whether it was verified before or not', async () => {
    const t = await protectInstance();
    const seen = await t.oauthToken();
    const unseen = await t.oauthToken();
    expect((await t.gatehouse.authenticate(apiPost({ Authorization: `Bearer ${seen}` }), BEARER)).ok).toBe(
      true,
    );
    t.clock.advance(3600 + 10);
    expect(await descriptionFor(t, seen)).toBe('The access token has expired.');
    expect(await descriptionFor(t, unseen)).toBe('The access token has expired.');
  });

  it('says a token has been revoked: by the revocation endpoint, and by revokeUser', async () => {
    const t = await protectInstance();
    const token = await t.oauthToken();
    await t.gatehouse.authenticate(apiPost({ Authorization: `Bearer ${token}` }), BEARER);
    const revoked = await t.gatehouse.fetch(
      post('/oauth2/v1/revoke', { token }, { Authorization: basic('demo-client', 'demo-secret') }),
    );
    expect(revoked.status).toBe(200);
    expect(await descriptionFor(t, token)).toBe('The access token has been revoked.');

    const other = await t.oauthToken();
    t.clock.advance(1);
    await t.gatehouse.revokeUser('user-1');
    expect(await descriptionFor(t, other)).toBe('The access token has been revoked.');
  });

  it('says a token of this key was issued for another issuer', async () => {
    const t = await protectInstance();
    const token = await signWithInstanceKey(claims(t, { iss: 'https://elsewhere.example' }), {
      typ: 'at+jwt',
    });
    expect(await descriptionFor(t, token)).toBe('The access token was issued by another issuer.');
  });

  it('says a token is not meant for this API when its audience names another', async () => {
    const t = await protectInstance();
    const token = await signWithInstanceKey(claims(t, { aud: 'https://other-api.example' }), {
      typ: 'at+jwt',
    });
    expect(await descriptionFor(t, token)).toBe(
      'The access token is not meant for this API (its audience does not name it).',
    );
    // The same once the token is in the verified-token cache.
    expect(await descriptionFor(t, token)).toBe(
      'The access token is not meant for this API (its audience does not name it).',
    );
  });

  it('tells nothing specific about tokens whose signature does not verify, even expired or foreign ones', async () => {
    const t = await protectInstance();
    const instanceKid = (await testKey()).kid;
    const stranger = await importJWK(await generateKeys('ES256'), 'ES256');
    const forge = (overrides: Record<string, unknown>) =>
      new SignJWT(claims(t, overrides))
        .setProtectedHeader({ alg: 'ES256', kid: instanceKid, typ: 'at+jwt' })
        .sign(stranger);
    expect(await descriptionFor(t, await forge({}))).toBe(GENERIC);
    expect(await descriptionFor(t, await forge({ exp: 1 }))).toBe(GENERIC);
    expect(await descriptionFor(t, await forge({ iss: 'https://elsewhere.example' }))).toBe(GENERIC);
    expect(await descriptionFor(t, 'a.b.c')).toBe(GENERIC);
    // Signed with the instance key but not an access token (`typ`): invalid, nothing more.
    expect(await descriptionFor(t, await signWithInstanceKey(claims(t), { typ: 'JWT' }))).toBe(GENERIC);
  });

  it('says a userinfo token whose user is gone has been revoked', async () => {
    let deleted = false;
    const real = memoryUserStore([{ id: 'user-1', username: 'demo', passwordHash: 'unused' }]);
    const t = await protectInstance({
      users: {
        verifyPassword: (username, password) => real.verifyPassword(username, password),
        findUser: async (id) => (deleted ? null : real.findUser(id)),
      },
    });
    const token = await t.oauthToken('openid');
    deleted = true;
    const response = await t.gatehouse.fetch(
      new Request(`${ISSUER}/oauth2/v1/userinfo`, { headers: { Authorization: `Bearer ${token}` } }),
    );
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      error: 'invalid_token',
      error_description: 'The access token has been revoked.',
    });
  });
});
