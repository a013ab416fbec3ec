import { describe, expect, it } from 'vitest';
import { basic, ISSUER, issueTokens, post, testInstance, testKey } from '../../test/fixtures';
import type { AccessTokenClaims } from './access-token';
import { VerifiedTokenCache } from './verified-token-cache';

const DEMO_BASIC = { Authorization: basic('demo-client', 'demo-secret') };

/** Introspects through the public endpoint, which verifies via the instance's token cache. */
async function introspect(
  t: Awaited<ReturnType<typeof testInstance>>,
  token: string,
): Promise<{ active: boolean }> {
  const response = await t.gatehouse.fetch(post('/oauth2/v1/introspect', { token }, DEMO_BASIC));
  expect(response.status).toBe(200);
  return response.json();
}

function claims(jti: string, exp: number): AccessTokenClaims {
  return {
    family: 'oauth2',
    subject: { kind: 'user', userId: 'user-1' },
    sub: 'user-1',
    clientId: 'demo-client',
    scope: '',
    audience: ['https://api.example'],
    jti,
    iat: exp - 60,
    exp,
  };
}

describe('verified access tokens seen again', () => {
  it('stop working the moment the token is revoked, although its verification is cached', async () => {
    const t = await testInstance();
    const { access_token } = await issueTokens(t);
    expect((await introspect(t, access_token)).active).toBe(true);
    expect((await introspect(t, access_token)).active).toBe(true);
    await t.gatehouse.fetch(post('/oauth2/v1/revoke', { token: access_token }, DEMO_BASIC));
    expect(await introspect(t, access_token)).toEqual({ active: false });
  });

  it('stop working the moment their grant is revoked (refresh token revoked)', async () => {
    const t = await testInstance();
    const { access_token, refresh_token } = await issueTokens(t);
    expect((await introspect(t, access_token)).active).toBe(true);
    await t.gatehouse.fetch(post('/oauth2/v1/revoke', { token: refresh_token }, DEMO_BASIC));
    expect(await introspect(t, access_token)).toEqual({ active: false });
  });

  it('expire at exp plus the clock tolerance, exactly as an uncached verification would', async () => {
    const t = await testInstance({ clockToleranceSeconds: 5 });
    const { access_token, expires_in } = await issueTokens(t);
    expect((await introspect(t, access_token)).active).toBe(true);
    // jose rejects when exp <= now - tolerance: still valid one second before that.
    t.clock.advance(expires_in + 4);
    expect((await introspect(t, access_token)).active).toBe(true);
    t.clock.advance(1);
    expect(await introspect(t, access_token)).toEqual({ active: false });
    // Moving the clock back does not resurrect a token the cache dropped: full verification decides.
    t.clock.advance(-10);
    expect((await introspect(t, access_token)).active).toBe(true);
  });

  it('are never accepted with a changed signature or payload, however close to a cached one', async () => {
    const t = await testInstance();
    const { access_token } = await issueTokens(t);
    expect((await introspect(t, access_token)).active).toBe(true);
    const [header, payload, signature] = access_token.split('.') as [string, string, string];
    const flipped = signature.startsWith('A') ? `B${signature.slice(1)}` : `A${signature.slice(1)}`;
    expect(await introspect(t, `${header}.${payload}.${flipped}`)).toEqual({ active: false });
    const other = await issueTokens(t);
    const [, otherPayload] = other.access_token.split('.') as [string, string];
    expect(await introspect(t, `${header}.${otherPayload}.${signature}`)).toEqual({ active: false });
  });

  it('are cached per instance: another issuer with the same key still refuses a token cached by the first', async () => {
    const key = await testKey();
    const a = await testInstance({ keys: [key] });
    const b = await testInstance({ keys: [key], audience: `${ISSUER}/other-api` });
    const { access_token } = await issueTokens(a);
    expect((await introspect(a, access_token)).active).toBe(true);
    // Same issuer, same key, same client: only the audience differs, so only a shared cache would pass it.
    expect(await introspect(b, access_token)).toEqual({ active: false });
    expect((await introspect(a, access_token)).active).toBe(true);
  });
});

describe('VerifiedTokenCache', () => {
  it('never holds more than its bound, dropping the oldest entries first', () => {
    const cache = new VerifiedTokenCache(3);
    for (let i = 0; i < 10; i++) cache.set(`token-${i}`, claims(`jti-${i}`, 1000));
    expect(cache.size).toBe(3);
    expect(cache.get('token-6', 0, 0)).toBeUndefined();
    expect(cache.get('token-7', 0, 0)?.jti).toBe('jti-7');
    expect(cache.get('token-9', 0, 0)?.jti).toBe('jti-9');
  });

  it('serves a token only for the whole token, not for another ending the same way', () => {
    const cache = new VerifiedTokenCache();
    const tail = 's'.repeat(40);
    cache.set(`header.payload-1.${tail}`, claims('one', 1000));
    expect(cache.get(`header.payload-2.${tail}`, 0, 0)).toBeUndefined();
    expect(cache.get(`header.payload-1.${tail}`, 0, 0)?.jti).toBe('one');
    cache.set(`header.payload-2.${tail}`, claims('two', 1000));
    expect(cache.get(`header.payload-1.${tail}`, 0, 0)).toBeUndefined();
    expect(cache.get(`header.payload-2.${tail}`, 0, 0)?.jti).toBe('two');
  });

  it('re-caching a token refreshes its place instead of growing', () => {
    const cache = new VerifiedTokenCache(2);
    cache.set('a', claims('a', 1000));
    cache.set('b', claims('b', 1000));
    cache.set('a', claims('a', 1000));
    cache.set('c', claims('c', 1000));
    expect(cache.size).toBe(2);
    expect(cache.get('b', 0, 0)).toBeUndefined();
    expect(cache.get('a', 0, 0)?.jti).toBe('a');
  });

  it('serves nothing expired or not yet valid, with the tolerance rule of jwtVerify', () => {
    const cache = new VerifiedTokenCache();
    cache.set('t', claims('t', 100), 50);
    expect(cache.get('t', 44_000, 5)).toBeUndefined(); // nbf 50 > 44 + 5
    expect(cache.get('t', 45_000, 5)?.jti).toBe('t');
    expect(cache.get('t', 104_999, 5)?.jti).toBe('t');
    expect(cache.get('t', 105_000, 5)).toBeUndefined(); // exp 100 <= 105 - 5
    expect(cache.size).toBe(0);
  });

  it('shared between instances, holds at most its bound in total and serves each only its own tokens', () => {
    const a = new VerifiedTokenCache(3);
    const b = a.share();
    a.set('t-a', claims('a', 1000));
    expect(b.get('t-a', 0, 0)).toBeUndefined();
    expect(a.get('t-a', 0, 0)?.jti).toBe('a');
    for (let i = 0; i < 5; i++) b.set(`t-b-${i}`, claims(`b${i}`, 1000));
    expect(a.size).toBe(3);
    expect(b.size).toBe(3);
    expect(a.get('t-a', 0, 0)).toBeUndefined(); // the oldest entry, of any instance, made room
    // The same token verified by both (identical keys) is one entry, served to whoever verified it last.
    a.set('same', claims('by-a', 1000));
    b.set('same', claims('by-b', 1000));
    expect(a.get('same', 0, 0)).toBeUndefined();
    expect(b.get('same', 0, 0)?.jti).toBe('by-b');
  });

  it('refuses a bound that is not a positive integer', () => {
    expect(() => new VerifiedTokenCache(0)).toThrow(RangeError);
    expect(() => new VerifiedTokenCache(1.5)).toThrow(RangeError);
  });
});
