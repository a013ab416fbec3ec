import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';
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

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, 32, { ...options, maxmem: 256 * 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
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
  if (!Number.isInteger(Math.log2(N)) || N < 2) throw new TypeError('scryptHasher: cost must be a power of two greater than 1');
  return {
    async hash(password) {
      const salt = randomBytes(16);
      const digest = await derive(password, salt, { N, r, p });
      return [PREFIX, N, r, p, salt.toString('base64url'), digest.toString('base64url')].join('$');
    },
    async verify(password, encoded) {
      const [prefix, n, rr, pp, salt, expected] = encoded.split('$');
      const params = { N: Number(n), r: Number(rr), p: Number(pp) };
      if (prefix !== PREFIX || !salt || !expected || !Object.values(params).every((v) => Number.isInteger(v) && v > 0)) return false;
      if (params.N > 2 ** 20 || params.r > 32 || params.p > 16) return false;
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
