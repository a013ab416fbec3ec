import { type KeyObject, sign as signNow } from 'node:crypto';
import { generateKeys } from '@gatehousejs/core';
import fc from 'fast-check';
import {
  createLocalJWKSet,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JSONWebKeySet,
  jwtVerify,
} from 'jose';
import { describe, expect, it } from 'vitest';
import { ISSUER, issueTokens, testInstance } from '../../test/fixtures';
import { base64url, portableBase64url, utf8 } from '../crypto/encoding';
import { type NativeCrypto, nativeCrypto } from '../crypto/native-crypto';
import { sha256, sha256Base64url } from '../crypto/sha256';
import { accessTokenPayload, protocolPayloadJson } from './access-token';
import { createJwsSigner } from './jws-signer';

describe('access tokens signed by the token endpoint', () => {
  for (const algorithm of ['ES256', 'EdDSA'] as const) {
    it(`are RFC 9068 JWTs that jose verifies against the published JWKS (${algorithm})`, async () => {
      const t = await testInstance({ algorithm, keys: [await generateKeys(algorithm)] });
      const { access_token } = await issueTokens(t, 'read');
      const jwks = (await (
        await t.gatehouse.fetch(new Request(`${ISSUER}/oauth2/v1/keys`))
      ).json()) as JSONWebKeySet;
      const now = Math.floor(t.clock.now() / 1000);
      const { payload, protectedHeader } = await jwtVerify(access_token, createLocalJWKSet(jwks), {
        algorithms: [algorithm],
        typ: 'at+jwt',
        issuer: ISSUER,
        audience: `${ISSUER}/api/v1`,
        currentDate: new Date(t.clock.now()),
      });
      expect(protectedHeader).toEqual({ alg: algorithm, typ: 'at+jwt', kid: jwks.keys[0]!.kid });
      expect(payload).toMatchObject({
        iss: ISSUER,
        sub: 'user-1',
        aud: `${ISSUER}/api/v1`,
        client_id: 'demo-client',
        scope: 'read',
        token_family: 'oauth2',
        iat: now,
        exp: now + 3600,
      });
      expect(payload.jti).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(typeof payload.gid).toBe('string');
    });
  }

  it('carry a distinct jti each time', async () => {
    const t = await testInstance();
    const jtis = new Set<unknown>();
    for (let i = 0; i < 5; i++) {
      const { access_token } = await issueTokens(t);
      jtis.add(JSON.parse(atob(access_token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))).jti);
      expect(decodeProtectedHeader(access_token).typ).toBe('at+jwt');
    }
    expect(jtis.size).toBe(5);
  });
});

describe('JWS signing, native and Web Crypto', () => {
  for (const algorithm of ['ES256', 'EdDSA', 'RS256'] as const) {
    for (const [name, native] of [
      ['Web Crypto', undefined],
      ['native', nativeCrypto],
    ] as const) {
      it(`produce ${algorithm} signatures jose accepts (${name})`, async () => {
        if (name === 'native') expect(native, 'Node exposes process.getBuiltinModule').toBeDefined();
        const { privateKey, publicKey } = await generateKeyPair(algorithm, {
          crv: algorithm === 'EdDSA' ? 'Ed25519' : undefined,
          extractable: true,
        });
        // As importKeySet has them: the JWK, and a non-extractable CryptoKey made from it.
        const jwk = await exportJWK(privateKey);
        const cryptoKey = (await importJWK(jwk, algorithm)) as CryptoKey;
        expect(cryptoKey.extractable).toBe(false);
        const sign = createJwsSigner(algorithm, cryptoKey, jwk, native);
        const header = base64url(utf8(JSON.stringify({ alg: algorithm, typ: 'at+jwt', kid: 'k' })));
        const body = base64url(utf8(JSON.stringify({ sub: 'ü-ser', exp: 4_000_000_000 })));
        const token = `${header}.${body}.${await sign(`${header}.${body}`)}`;
        const { payload } = await jwtVerify(token, publicKey, { algorithms: [algorithm], typ: 'at+jwt' });
        expect(payload.sub).toBe('ü-ser');
        const tampered = `${header}.${base64url(utf8(JSON.stringify({ sub: 'other', exp: 4_000_000_000 })))}.${token.split('.')[2]}`;
        await expect(jwtVerify(tampered, publicKey, { algorithms: [algorithm] })).rejects.toThrow();
      });
    }
  }
});

describe('JWS signing off the event loop', () => {
  async function es256Key() {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const jwk = await exportJWK(privateKey);
    return { jwk, publicKey, cryptoKey: (await importJWK(jwk, 'ES256')) as CryptoKey };
  }
  const signingInput = `${base64url(utf8('{"alg":"ES256"}'))}.${base64url(utf8('{"sub":"u"}'))}`;

  it('signs through the callback form of crypto.sign, leaving the event loop before the signature exists', async () => {
    const { jwk, cryptoKey, publicKey } = await es256Key();
    let calledBack = false;
    const native = {
      ...nativeCrypto!,
      sign: ((...args: Parameters<NativeCrypto['sign']>) => {
        const [digest, data, key, callback] = args;
        return nativeCrypto!.sign(digest, data, key, (error, signature) => {
          calledBack = true;
          callback(error, signature);
        });
      }) as NativeCrypto['sign'],
    };
    const pending = createJwsSigner('ES256', cryptoKey, jwk, native)(signingInput);
    expect(calledBack).toBe(false);
    const token = `${signingInput}.${await pending}`;
    expect(calledBack).toBe(true);
    await expect(jwtVerify(token, publicKey, { algorithms: ['ES256'] })).resolves.toBeDefined();
  });

  it('still settles where a runtime returns the signature instead of calling back', async () => {
    const { jwk, cryptoKey, publicKey } = await es256Key();
    const native = {
      ...nativeCrypto!,
      // A partial node:crypto emulation: ignores the callback and answers at once.
      sign: ((digest, data, key) => signNow(digest, data, key as KeyObject)) as NativeCrypto['sign'],
    };
    const signature = await createJwsSigner('ES256', cryptoKey, jwk, native)(signingInput);
    await expect(
      jwtVerify(`${signingInput}.${signature}`, publicKey, { algorithms: ['ES256'] }),
    ).resolves.toBeDefined();
  });

  it('rejects with the error the runtime reports, thrown or called back', async () => {
    const { jwk, cryptoKey } = await es256Key();
    const thrown = {
      ...nativeCrypto!,
      sign: (() => {
        throw new Error('thrown at the call');
      }) as NativeCrypto['sign'],
    };
    await expect(createJwsSigner('ES256', cryptoKey, jwk, thrown)(signingInput)).rejects.toThrow(
      'thrown at the call',
    );
    const calledBack = {
      ...nativeCrypto!,
      sign: ((_d, _data, _key, callback) => {
        queueMicrotask(() => callback(new Error('called back'), new Uint8Array()));
        return undefined;
      }) as NativeCrypto['sign'],
    };
    await expect(createJwsSigner('ES256', cryptoKey, jwk, calledBack)(signingInput)).rejects.toThrow(
      'called back',
    );
  });
});

describe('SHA-256 of secrets', () => {
  it('gives the same bytes natively and through Web Crypto, for any string (lone surrogates included)', async () => {
    expect(nativeCrypto).toBeDefined();
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 200 }), async (text) => {
        const portable = await sha256(text, undefined);
        expect(await sha256(text, nativeCrypto)).toEqual(portable);
        // Without the one-shot `hash` (Node < 20.12), through `createHash`.
        expect(await sha256(text, { ...nativeCrypto!, hash: undefined })).toEqual(portable);
        const encoded = base64url(portable);
        expect(await sha256Base64url(text, nativeCrypto)).toBe(encoded);
        expect(await sha256Base64url(text, { ...nativeCrypto!, hash: undefined })).toBe(encoded);
        expect(await sha256Base64url(text, undefined)).toBe(encoded);
      }),
      { numRuns: 300 },
    );
  });

  it('matches the FIPS 180-2 test vector', async () => {
    const hex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
    const expected = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
    expect(hex(await sha256('abc', nativeCrypto))).toBe(expected);
    expect(hex(await sha256('abc', undefined))).toBe(expected);
  });
});

describe('base64url', () => {
  it('gives the same unpadded RFC 4648 §5 text natively and portably, for any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(8), (bytes, offset) => {
        // A view into a larger buffer, as digests and signatures often are.
        const view = new Uint8Array(bytes.length + offset);
        view.set(bytes, offset);
        const slice = view.subarray(offset);
        const encoded = base64url(slice);
        expect(encoded).toBe(portableBase64url(bytes));
        expect(encoded).toMatch(/^[A-Za-z0-9_-]*$/);
      }),
      { numRuns: 500 },
    );
    expect(portableBase64url(new Uint8Array([251, 255]))).toBe('-_8');
  });
});

describe('the access token payload written member by member', () => {
  // Strings with what JSON escapes (quotes, backslashes, controls, lone surrogates) and what it
  // does not (non-ASCII, U+2028).
  const text = fc
    .array(
      fc.constantFrom(
        'a',
        'Z',
        '"',
        '\\',
        '\u0000',
        '\n',
        '\u001f',
        'é',
        '\u2028',
        '😀',
        '\ud800',
        '\udc00',
        '/',
      ),
      {
        maxLength: 8,
      },
    )
    .map((pieces) => pieces.join(''));
  const grant = fc.record(
    {
      family: fc.constantFrom('oauth2' as const, 'auth_api' as const),
      subject: fc.oneof(
        text.map((userId) => ({ kind: 'user' as const, userId })),
        text.map((clientId) => ({ kind: 'client' as const, clientId })),
      ),
      clientId: text,
      scope: text,
      grantId: text,
      jkt: text,
      ttl: fc.integer({ min: 1, max: 86_400 }),
    },
    { requiredKeys: ['family', 'subject', 'scope', 'ttl'] },
  );

  it('is exactly JSON.stringify of the payload object', () => {
    fc.assert(
      fc.property(
        grant,
        text,
        fc.oneof(text, fc.array(text, { maxLength: 3 })),
        fc.integer({ min: 0, max: 2 ** 40 }),
        (g, issuer, aud, iat) => {
          const jti = base64url(utf8(issuer)) || 'AA';
          const sub = g.subject.kind === 'user' ? g.subject.userId : g.subject.clientId;
          expect(protocolPayloadJson(issuer, sub, aud, iat, iat + g.ttl, jti, g)).toBe(
            JSON.stringify(accessTokenPayload(undefined, issuer, sub, aud, iat, iat + g.ttl, jti, g)),
          );
        },
      ),
      { numRuns: 1000 },
    );
  });
});
