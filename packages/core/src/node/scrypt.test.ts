import { scryptHasher } from '@gatehousejs/core/node';
import { describe, expect, it } from 'vitest';

// Cheap parameters for speed; one test keeps the production default.
const hasher = scryptHasher({ cost: 2 ** 10, blockSize: 8 });

describe('scryptHasher', () => {
  it('verifies the password it hashed with the default (production) cost and refuses any other', async () => {
    const production = scryptHasher();
    const encoded = await production.hash('correct horse battery staple');
    expect(encoded.split('$').slice(0, 4)).toEqual(['scrypt', '32768', '8', '1']);
    expect(await production.verify('correct horse battery staple', encoded)).toBe(true);
    expect(await production.verify('correct horse battery stapler', encoded)).toBe(false);
  });

  it('encodes parameters, a 128-bit salt and a 256-bit digest', async () => {
    const [prefix, n, r, p, salt, digest, ...rest] = (await hasher.hash('pw')).split('$');
    expect([prefix, n, r, p]).toEqual(['scrypt', '1024', '8', '1']);
    expect(salt).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(digest).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(rest).toEqual([]);
  });

  it('salts every hash', async () => {
    expect(await hasher.hash('same')).not.toBe(await hasher.hash('same'));
  });

  it('verifies with the parameters stored in the hash, so raising the cost keeps old hashes valid', async () => {
    const old = await scryptHasher({ cost: 2 ** 4, blockSize: 1 }).hash('pw');
    expect(await hasher.verify('pw', old)).toBe(true);
  });

  it('matches the scrypt test vector of RFC 7914 §12 (P="password", S="NaCl", N=1024, r=8, p=16)', async () => {
    // The first 32 bytes of the vector's 64-byte output: our digest length.
    const salt = Buffer.from('NaCl').toString('base64url');
    const digest = Buffer.from(
      'fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b373162',
      'hex',
    ).toString('base64url');
    expect(await hasher.verify('password', `scrypt$1024$8$16$${salt}$${digest}`)).toBe(true);
    expect(await hasher.verify('passwore', `scrypt$1024$8$16$${salt}$${digest}`)).toBe(false);
  });

  it('treats differently normalised Unicode passwords as the same password', async () => {
    const encoded = await hasher.hash('caf\u00e9');
    expect(await hasher.verify('cafe\u0301', encoded)).toBe(true);
  });

  it.each([
    ['an empty string', ''],
    ['another algorithm', 'pbkdf2-sha256$1000$c2FsdA$ZGlnZXN0'],
    ['missing fields', 'scrypt$1024$8$1$c2FsdA'],
    ['non-numeric parameters', 'scrypt$big$8$1$c2FsdA$ZGlnZXN0'],
    ['a cost that is not a power of two', 'scrypt$1000$8$1$c2FsdA$ZGlnZXN0'],
    ['a cost above 2^20', `scrypt$${2 ** 21}$8$1$c2FsdA$ZGlnZXN0`],
    ['a block size above 32', 'scrypt$1024$64$1$c2FsdA$ZGlnZXN0'],
    ['parameters needing more than 256 MiB', `scrypt$${2 ** 20}$8$1$c2FsdA$ZGlnZXN0`],
    ['a wrong-length digest', 'scrypt$1024$8$1$c2FsdA$ZGlnZXN0'],
  ])('answers false, without throwing, for %s', async (_, encoded) => {
    await expect(hasher.verify('pw', encoded)).resolves.toBe(false);
  });

  it.each([
    ['a cost that is not a power of two', { cost: 1000 }],
    ['a cost of 1', { cost: 1 }],
    ['a cost above 2^20', { cost: 2 ** 21 }],
    ['a fractional block size', { blockSize: 1.5 }],
    ['a zero parallelisation', { parallelization: 0 }],
    ['parameters needing more than 256 MiB', { cost: 2 ** 20, blockSize: 8 }],
  ])('refuses %s at creation', (_, options) => {
    expect(() => scryptHasher(options)).toThrow(TypeError);
  });
});
