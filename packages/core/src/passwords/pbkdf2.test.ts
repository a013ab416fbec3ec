import { pbkdf2Hasher } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';

const hasher = pbkdf2Hasher({ iterations: 1000 });

describe('pbkdf2Hasher', () => {
  it('verifies the password it hashed and refuses any other', async () => {
    const encoded = await hasher.hash('correct horse');
    expect(await hasher.verify('correct horse', encoded)).toBe(true);
    expect(await hasher.verify('correct horsE', encoded)).toBe(false);
    expect(await hasher.verify('', encoded)).toBe(false);
  });

  it('encodes algorithm, iterations, a 128-bit salt and a 256-bit digest', async () => {
    const encoded = await hasher.hash('pw');
    const [prefix, iterations, salt, digest, ...rest] = encoded.split('$');
    expect(prefix).toBe('pbkdf2-sha256');
    expect(iterations).toBe('1000');
    expect(salt).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(digest).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(rest).toEqual([]);
  });

  it('salts every hash, so equal passwords hash differently', async () => {
    expect(await hasher.hash('same')).not.toBe(await hasher.hash('same'));
  });

  it('verifies with the iterations stored in the hash, so raising the cost keeps old hashes valid', async () => {
    const old = await pbkdf2Hasher({ iterations: 500 }).hash('pw');
    expect(await hasher.verify('pw', old)).toBe(true);
  });

  it('matches the PBKDF2-HMAC-SHA256 test vector of RFC 7914 §11', async () => {
    // P = "passwd", S = "salt", c = 1, dkLen = 64; the first 32 bytes are our digest.
    const encoded = `pbkdf2-sha256$1$${b64url('salt')}$VawEblbjCJ_sFpHCJUS2BflBhSFt3gRl5oudV8INrLw`;
    expect(await hasher.verify('passwd', encoded)).toBe(true);
  });

  it('treats differently normalised Unicode passwords as the same password', async () => {
    const encoded = await hasher.hash('caf\u00e9');
    expect(await hasher.verify('cafe\u0301', encoded)).toBe(true);
  });

  it.each([
    ['an empty string', ''],
    ['another algorithm', 'scrypt$16$8$1$c2FsdA$ZGlnZXN0'],
    ['a missing digest', 'pbkdf2-sha256$1000$c2FsdA'],
    ['non-numeric iterations', 'pbkdf2-sha256$many$c2FsdA$ZGlnZXN0'],
    ['zero iterations', 'pbkdf2-sha256$0$c2FsdA$ZGlnZXN0'],
    ['absurd iterations', 'pbkdf2-sha256$100000000$c2FsdA$ZGlnZXN0'],
    ['a salt that is not base64url', 'pbkdf2-sha256$1000$!!!$ZGlnZXN0'],
    ['a digest that is not base64url', 'pbkdf2-sha256$1000$c2FsdA$***'],
    ['a truncated digest', 'pbkdf2-sha256$1$c2FsdA$VawEblbjCJ_sFpHCJUS2BflBhSFt3gRl5oudV8IN'],
  ])('answers false, without throwing, for %s', async (_, encoded) => {
    await expect(hasher.verify('passwd', encoded)).resolves.toBe(false);
  });

  it.each([0, -1, 1.5, Number.NaN, 10_000_001])('refuses %s iterations at creation', (iterations) => {
    expect(() => pbkdf2Hasher({ iterations })).toThrow(TypeError);
  });
});

function b64url(text: string): string {
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
