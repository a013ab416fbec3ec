import { generateKeys, type PrivateJwk } from '@gatehousejs/core';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { ISSUER, testKey } from '../../test/fixtures';
import { importKeySet, type SigningAlgorithm } from '../tokens/keys';
import { idTokenAlgorithm, signIdToken, tokenHash, verifyIdTokenHint } from './id-token';

let rsaKey: Promise<PrivateJwk> | undefined;
const testRsaKey = () => {
  rsaKey ??= generateKeys('RS256');
  return rsaKey;
};

const NOW = Date.UTC(2026, 0, 1);

async function signingContext(issuer = ISSUER) {
  const keys = await importKeySet(
    [await testRsaKey(), await testKey(), await generateKeys('EdDSA')],
    'ES256',
  );
  return { issuer, clock: { now: () => NOW }, keys, tokens: { accessTokenTtl: 3600 } };
}

describe('ID tokens', () => {
  for (const algorithm of ['RS256', 'ES256', 'EdDSA'] as const) {
    it(`carry the Core section 2 claims and verify against the JWKS (${algorithm})`, async () => {
      const ctx = await signingContext();
      const token = await signIdToken(ctx, {
        userId: 'user-1',
        clientId: 'client-a',
        authTime: NOW - 90_500,
        nonce: 'n-0S6_WzA2Mj',
        sid: 'session-1',
        accessToken: 'an-access-token',
        claims: { name: 'Demo User', sub: 'forged', iss: 'https://evil.example' },
        algorithm,
      });
      const header = decodeProtectedHeader(token);
      expect(header).toEqual({ alg: algorithm, typ: 'JWT', kid: ctx.keys.signers.get(algorithm)!.kid });
      const { payload } = await jwtVerify(token, createLocalJWKSet(ctx.keys.publicJwks as never), {
        algorithms: [algorithm],
        issuer: ISSUER,
        audience: 'client-a',
        currentDate: new Date(NOW),
      });
      const iat = NOW / 1000;
      expect(payload).toEqual({
        iss: ISSUER,
        sub: 'user-1',
        aud: 'client-a',
        iat,
        exp: iat + 3600,
        auth_time: iat - 91,
        nonce: 'n-0S6_WzA2Mj',
        sid: 'session-1',
        at_hash: await tokenHash('an-access-token', algorithm),
        name: 'Demo User',
      });
    });
  }

  it('leaves nonce, at_hash and sid out when there are none', async () => {
    const ctx = await signingContext();
    const token = await signIdToken(ctx, { userId: 'u', clientId: 'c', authTime: NOW, algorithm: 'RS256' });
    const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
    expect(Object.keys(payload).sort()).toEqual(['aud', 'auth_time', 'exp', 'iat', 'iss', 'sub']);
  });

  it('computes at_hash as the left half of the hash of the algorithm (SHA-512 for EdDSA)', async () => {
    // The example of OpenID Connect Core A.3: access token "jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y"
    // gives at_hash "77QmUPtjPfzWtF2AnpK9RQ" with RS256.
    expect(await tokenHash('jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y', 'RS256')).toBe(
      '77QmUPtjPfzWtF2AnpK9RQ',
    );
    for (const algorithm of ['RS256', 'ES256', 'EdDSA'] as SigningAlgorithm[]) {
      const ctx = await signingContext();
      const accessToken = `token-${algorithm}`;
      const idToken = await signIdToken(ctx, {
        userId: 'u',
        clientId: 'c',
        authTime: NOW,
        accessToken,
        algorithm,
      });
      const expected = Buffer.from(
        await crypto.subtle.digest(
          algorithm === 'EdDSA' ? 'SHA-512' : 'SHA-256',
          new TextEncoder().encode(accessToken),
        ),
      );
      const payload = JSON.parse(Buffer.from(idToken.split('.')[1]!, 'base64url').toString());
      expect(payload.at_hash).toBe(expected.subarray(0, expected.length / 2).toString('base64url'));
    }
  });

  it('default to RS256 unless the client registered another algorithm', async () => {
    const { keys } = await signingContext();
    expect(idTokenAlgorithm(keys, {})).toBe('RS256');
    expect(idTokenAlgorithm(keys, { idTokenSignedResponseAlg: 'EdDSA' })).toBe('EdDSA');
    const withoutRsa = await importKeySet([await testKey()], 'ES256');
    expect(idTokenAlgorithm(withoutRsa, {})).toBe('ES256');
  });
});

describe('id_token_hint', () => {
  it('identifies the user, clients and session of an ID token of this issuer, even long expired', async () => {
    const ctx = await signingContext();
    const token = await signIdToken(ctx, {
      userId: 'user-1',
      clientId: 'client-a',
      authTime: NOW,
      sid: 's-1',
      algorithm: 'RS256',
    });
    const later = { ...ctx, now: () => NOW + 365 * 86_400_000 };
    expect(await verifyIdTokenHint(later, token)).toEqual({
      sub: 'user-1',
      audiences: ['client-a'],
      sid: 's-1',
    });
  });

  it('refuses tokens of another issuer, tampered ones, foreign keys, access tokens and junk', async () => {
    const ctx = await signingContext();
    const sign = (c: typeof ctx) =>
      signIdToken(c, { userId: 'user-1', clientId: 'a', authTime: NOW, algorithm: 'ES256' });
    expect(
      await verifyIdTokenHint(ctx, await sign(await signingContext('https://other.example'))),
    ).toBeNull();
    const [h, , s] = (await sign(ctx)).split('.');
    const forged = Buffer.from(JSON.stringify({ iss: ISSUER, sub: 'admin', aud: 'a' })).toString('base64url');
    expect(await verifyIdTokenHint(ctx, `${h}.${forged}.${s}`)).toBeNull();
    const stranger = { ...ctx, keys: await importKeySet([await generateKeys('ES256')], 'ES256') };
    const strangerToken = await sign(stranger);
    expect(await verifyIdTokenHint(ctx, strangerToken)).toBeNull();
    const accessHeader = Buffer.from(
      JSON.stringify({ alg: 'ES256', typ: 'at+jwt', kid: ctx.keys.signingKid }),
    ).toString('base64url');
    const body = Buffer.from(JSON.stringify({ iss: ISSUER, sub: 'user-1', aud: 'a' })).toString('base64url');
    const accessToken = `${accessHeader}.${body}.${await ctx.keys.sign(`${accessHeader}.${body}`)}`;
    expect(await verifyIdTokenHint(ctx, accessToken)).toBeNull();
    const noneHeader = Buffer.from(JSON.stringify({ alg: 'none', kid: ctx.keys.signingKid })).toString(
      'base64url',
    );
    expect(await verifyIdTokenHint(ctx, `${noneHeader}.${body}.`)).toBeNull();
    for (const junk of ['', 'a.b.c', 'x'.repeat(9000)]) expect(await verifyIdTokenHint(ctx, junk)).toBeNull();
  });
});
