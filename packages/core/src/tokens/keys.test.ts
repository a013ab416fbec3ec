import { ConfigurationError, generateKeys, type PrivateJwk } from '@gatehousejs/core';
import { createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { ISSUER, issueTokens, testInstance, testKey } from '../../test/fixtures';
import { importKeySet } from './keys';

let rsaKey: Promise<PrivateJwk> | undefined;
const testRsaKey = () => {
  rsaKey ??= generateKeys('RS256');
  return rsaKey;
};

describe('key sets of several algorithms', () => {
  it('generates 2048-bit RS256 keys with a kid and alg', async () => {
    const key = await testRsaKey();
    expect(key).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    expect(typeof key.kid).toBe('string');
    expect(Buffer.from(key.n!, 'base64url').length * 8).toBe(2048);
  });

  it('publishes every key, each with its own alg, and keeps access tokens on the instance algorithm', async () => {
    const es256 = await testKey();
    const rs256 = await testRsaKey();
    const t = await testInstance({ keys: [rs256, es256] });
    const jwks = (await (
      await t.gatehouse.fetch(new Request(`${ISSUER}/oauth2/v1/keys`))
    ).json()) as JSONWebKeySet;
    expect(jwks.keys.map((k) => [k.kid, k.alg])).toEqual([
      [rs256.kid, 'RS256'],
      [es256.kid, 'ES256'],
    ]);
    for (const key of jwks.keys)
      for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(key).not.toHaveProperty(member);
    const { access_token } = await issueTokens(t, 'read');
    expect(decodeProtectedHeader(access_token)).toMatchObject({ alg: 'ES256', kid: es256.kid });
    await expect(
      jwtVerify(access_token, createLocalJWKSet(jwks), {
        algorithms: ['ES256'],
        currentDate: new Date(t.clock.now()),
      }),
    ).resolves.toBeDefined();
  });

  it('signs with the first key of each algorithm', async () => {
    const first = await generateKeys('ES256');
    const second = await generateKeys('ES256');
    const keys = await importKeySet([first, await testRsaKey(), second], 'ES256');
    expect(keys.signingKid).toBe(first.kid);
    expect([...keys.signers.keys()]).toEqual(['ES256', 'RS256']);
    expect(keys.signers.get('RS256')!.kid).toBe((await testRsaKey()).kid);
    expect(keys.keyAlgorithms.get(second.kid)).toBe('ES256');
  });

  it('can sign access tokens with RS256 too', async () => {
    const t = await testInstance({ keys: [await testRsaKey()], algorithm: 'RS256' });
    const { access_token } = await issueTokens(t, 'read');
    expect(decodeProtectedHeader(access_token).alg).toBe('RS256');
  });

  it('refuses an instance without a key of the access tokens algorithm', async () => {
    await expect(importKeySet([{ kid: 'x', kty: 'oct', k: 'AAAA' } as PrivateJwk], 'ES256')).rejects.toThrow(
      /not a key Gatehouse signs with/,
    );
    await expect(importKeySet([await testRsaKey()], 'ES256')).rejects.toThrow(/no P-256 EC key/);
  });

  it('refuses RSA keys below 2048 bits, an alg that contradicts the key type, and a public first key', async () => {
    const small = (await crypto.subtle.generateKey(
      {
        name: 'RSASSA-PKCS1-v1_5',
        modulusLength: 1024,
        publicExponent: new Uint8Array([1, 0, 1]),
        hash: 'SHA-256',
      },
      true,
      ['sign', 'verify'],
    )) as CryptoKeyPair;
    const smallJwk = {
      ...(await crypto.subtle.exportKey('jwk', small.privateKey)),
      kid: 'small',
    } as PrivateJwk;
    await expect(importKeySet([await testKey(), smallJwk], 'ES256')).rejects.toThrow(ConfigurationError);
    const mislabelled = { ...(await testRsaKey()), alg: 'ES256' };
    await expect(importKeySet([await testKey(), mislabelled], 'ES256')).rejects.toThrow(/does not fit a RSA/);
    const { d: _d, ...publicRsa } = await testRsaKey();
    await expect(importKeySet([await testKey(), publicRsa as PrivateJwk], 'ES256')).rejects.toThrow(
      /must be a private JWK.*first RS256 key/,
    );
  });
});
