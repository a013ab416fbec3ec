import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';
import { UsageError } from '../errors.js';
import type { PasswordHasher } from '../passwords/password-hasher.js';

/** Options of {@link scryptHasher}. */
export interface ScryptHasherOptions {
  /** CPU/memory cost N (a power of two). Default 2^15 (32 MiB with r = 8), per OWASP's scrypt minimum guidance. */
  readonly cost?: number;
  /** Block size r. Default 8. */
  readonly blockSize?: number;
  /** Parallelisation p. Default 1. */
  readonly parallelization?: number;
}

const PREFIX = 'scrypt';
/** Bounds on stored parameters, so that a forged hash cannot make verification stall or exhaust memory. */
const MAX_COST = 2 ** 20;
const MAX_BLOCK_SIZE = 32;
const MAX_PARALLELIZATION = 16;
/** scrypt needs about 128·N·r bytes. */
const MAX_MEMORY = 256 * 1024 * 1024;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(
      password.normalize('NFC'),
      salt,
      32,
      { ...options, maxmem: MAX_MEMORY + 1024 * 1024 },
      (error, key) => (error ? reject(error) : resolve(key)),
    );
  });
}

/**
 * A memory-hard {@link PasswordHasher} on Node's scrypt, encoded as
 * `scrypt$<N>$<r>$<p>$<salt>$<digest>` (base64url). Verification uses the parameters stored in the
 * hash, so raising the cost later keeps old hashes valid.
 */
export function scryptHasher(options: ScryptHasherOptions = {}): PasswordHasher {
  const N = options.cost ?? 2 ** 15;
  const r = options.blockSize ?? 8;
  const p = options.parallelization ?? 1;
  // The same bounds as `verify` enforces on stored hashes, so every hash this makes can be verified.
  if (!Number.isInteger(N) || !Number.isInteger(Math.log2(N)) || N < 2 || N > MAX_COST) {
    throw new UsageError(
      `scryptHasher: cost must be a power of two between 2 and ${MAX_COST}`,
      'ERR_INVALID_ARGUMENT',
      'cost',
    );
  }
  if (!Number.isInteger(r) || r < 1 || r > MAX_BLOCK_SIZE)
    throw new UsageError(
      `scryptHasher: blockSize must be a whole number between 1 and ${MAX_BLOCK_SIZE}`,
      'ERR_INVALID_ARGUMENT',
      'blockSize',
    );
  if (!Number.isInteger(p) || p < 1 || p > MAX_PARALLELIZATION) {
    throw new UsageError(
      `scryptHasher: parallelization must be a whole number between 1 and ${MAX_PARALLELIZATION}`,
      'ERR_INVALID_ARGUMENT',
      'parallelization',
    );
  }
  if (128 * N * r > MAX_MEMORY)
    throw new UsageError(
      'scryptHasher: cost × blockSize needs more than 256 MiB of memory',
      'ERR_INVALID_ARGUMENT',
      'cost',
    );
  return {
    async hash(password) {
      const salt = randomBytes(16);
      const digest = await derive(password, salt, { N, r, p });
      return [PREFIX, N, r, p, salt.toString('base64url'), digest.toString('base64url')].join('$');
    },
    async verify(password, encoded) {
      const [prefix, n, rr, pp, salt, expected] = encoded.split('$');
      const params = { N: Number(n), r: Number(rr), p: Number(pp) };
      if (
        prefix !== PREFIX ||
        !salt ||
        !expected ||
        !Object.values(params).every((v) => Number.isInteger(v) && v > 0)
      )
        return false;
      if (params.N > MAX_COST || params.r > MAX_BLOCK_SIZE || params.p > MAX_PARALLELIZATION) return false;
      const wanted = Buffer.from(expected, 'base64url');
      try {
        const actual = await derive(password, Buffer.from(salt, 'base64url'), params);
        return actual.length === wanted.length && timingSafeEqual(actual, wanted);
      } catch {
        return false;
      }
    },
  };
}
