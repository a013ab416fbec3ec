/**
 * How long `resourceServer()` trusts the issuer's JWKS, against a real instance with stored keys
 * served over HTTP: a key revoked at the instance (`keys.revoke`) stops verifying at the resource
 * server within the JWKS's `max-age` (at most 300 s), or at once when a token of a `kid`
 * its copy lacks made it fetch the set again; made-up `kid`s cost at most one fetch per 10 s. Both sides read
 * the clock through `Date.now()`, which the tests move (no sleeps).
 */
import { generateKeys } from '@gatehousejs/core';
import { resourceServer } from '@gatehousejs/core/protect';
import { decodeProtectedHeader, importJWK, SignJWT } from 'jose';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { API, introspectingIssuer } from '../../test/introspecting-issuer';

type Issuer = Awaited<ReturnType<typeof introspectingIssuer>>;

const JWKS = '/demo/oauth2/v1/keys';
const DAY = 86_400;

let issuer: Issuer;
beforeEach(async () => {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
  issuer = await introspectingIssuer({
    keys: [],
    keyRotation: { keyEncryptionKey: new Uint8Array(32).fill(7), rotateEvery: 10 * DAY, leadTime: DAY },
    // Longer than any wait below: a refused token is refused for its key, not its age.
    accessTokenTtl: 3600,
  });
});
afterEach(async () => {
  vi.useRealTimers();
  await issuer.stop();
});

const api = (fetch?: (url: string, init: RequestInit) => Promise<Response>) =>
  resourceServer({ issuer: issuer.issuer, resource: API, ...(fetch ? { fetch } : {}) });

async function status(server: ReturnType<typeof api>, token: string): Promise<number> {
  const result = await server.authenticate(
    new Request(`${API}/reports`, { headers: { Authorization: `Bearer ${token}` } }),
    'reports:read',
  );
  return result.ok ? 200 : result.response.status;
}

const kidOf = (token: string) => decodeProtectedHeader(token).kid!;
const advance = (seconds: number) => vi.setSystemTime(Date.now() + seconds * 1000);

/** A token like the issuer's, signed by a key the issuer never had, under `kid`. */
async function madeUpToken(kid: string): Promise<string> {
  const key = await importJWK(await generateKeys('ES256'), 'ES256');
  return new SignJWT({ scope: 'reports:read', client_id: 'reports-worker', token_family: 'oauth2' })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid })
    .setIssuer(issuer.issuer)
    .setAudience(API)
    .setSubject('reports-worker')
    .setJti(crypto.randomUUID())
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(key);
}

describe('resourceServer() and revoked signing keys', () => {
  it("refuses a revoked key's tokens once its copy of the JWKS is max-age old (300 s), not before", async () => {
    const server = api();
    const token = await issuer.token();
    expect(await status(server, token)).toBe(200);
    expect(issuer.count(JWKS)).toBe(1);
    expect(await issuer.gatehouse.keys.revoke(kidOf(token))).toBe(true);
    // The copy fetched before the revocation is trusted for the JWKS's max-age: the window.
    advance(299);
    expect(await status(server, token)).toBe(200);
    expect(issuer.count(JWKS)).toBe(1);
    advance(1);
    expect(await status(server, token)).toBe(401);
    expect(issuer.count(JWKS)).toBe(2);
  });

  it("refuses a revoked key's tokens once a token of a key it lacks made it fetch the JWKS again", async () => {
    const server = api();
    const before = await issuer.token();
    expect(await status(server, before)).toBe(200);
    // The signing key is revoked: the next one signs at once, a kid this copy of the JWKS lacks.
    await issuer.gatehouse.keys.revoke(kidOf(before));
    const after = await issuer.token();
    expect(kidOf(after)).not.toBe(kidOf(before));
    // Within 10 s of its last fetch the resource server does not fetch again for an unknown kid.
    advance(9);
    expect(await status(server, after)).toBe(401);
    expect(await status(server, before)).toBe(200);
    advance(1);
    expect(await status(server, after)).toBe(200);
    expect(issuer.count(JWKS)).toBe(2);
    expect(await status(server, before)).toBe(401);
  });

  it('fetches the JWKS again for an unknown kid at most once per 10 s', async () => {
    const server = api();
    expect(await status(server, await issuer.token())).toBe(200);
    expect(issuer.count(JWKS)).toBe(1);
    // Within 10 s of the last fetch, made-up kids fetch nothing.
    for (let i = 0; i < 5; i++) expect(await status(server, await madeUpToken(`made-up-${i}`))).toBe(401);
    expect(issuer.count(JWKS)).toBe(1);
    advance(10);
    for (let i = 0; i < 5; i++) expect(await status(server, await madeUpToken(`later-${i}`))).toBe(401);
    expect(issuer.count(JWKS)).toBe(2);
  });

  it("honours the JWKS's max-age below 300 s, caps it at 300 s, and trusts a no-store answer 30 s", async () => {
    for (const [cacheControl, trustedSeconds] of [
      ['public, max-age=60', 60],
      ['public, max-age=86400', 300],
      ['no-store', 30],
      [null, 300],
    ] as const) {
      const counted = issuer.count(JWKS);
      const server = api(async (url, init) => {
        const answer = await fetch(url, init);
        const headers = new Headers(answer.headers);
        if (cacheControl === null) headers.delete('cache-control');
        else headers.set('cache-control', cacheControl);
        return new Response(await answer.arrayBuffer(), { status: answer.status, headers });
      });
      const token = await issuer.token();
      expect(await status(server, token)).toBe(200);
      advance(trustedSeconds - 1);
      expect(await status(server, token)).toBe(200);
      expect(issuer.count(JWKS) - counted, String(cacheControl)).toBe(1);
      advance(1);
      expect(await status(server, token)).toBe(200);
      expect(issuer.count(JWKS) - counted, String(cacheControl)).toBe(2);
    }
  });

  it('answers 503 when the trusted copy expired and the JWKS cannot be fetched (no stale keys)', async () => {
    const server = api();
    const token = await issuer.token();
    expect(await status(server, token)).toBe(200);
    await issuer.stop();
    advance(300);
    expect(await status(server, token)).toBe(503);
  });
});
