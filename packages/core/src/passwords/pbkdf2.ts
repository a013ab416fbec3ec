import { base64url, utf8 } from '../crypto/encoding.js';
import { UsageError } from '../errors.js';
import type { PasswordHasher } from './password-hasher.js';

/** Options of {@link pbkdf2Hasher}. */
export interface Pbkdf2HasherOptions {
  /**
   * PBKDF2-HMAC-SHA256 iterations for new hashes. Default 600,000 (OWASP Password Storage Cheat
   * Sheet, 2023+). Existing hashes keep the count they were made with.
   */
  readonly iterations?: number;
}

const PREFIX = 'pbkdf2-sha256';
/** Upper bound on the iterations of a stored hash: a forged huge count must not stall the server. */
const MAX_ITERATIONS = 10_000_000;

function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

async function derive(
  password: string,
  salt: Uint8Array<ArrayBuffer>,
  iterations: number,
): Promise<Uint8Array> {
  // NFC, like scryptHasher: the same password typed on differently-normalising keyboards must match.
  const key = await crypto.subtle.importKey('raw', utf8(password.normalize('NFC')), 'PBKDF2', false, [
    'deriveBits',
  ]);
  const bits = await crypto.subtle.deriveBits(
    { name: 'PBKDF2', hash: 'SHA-256', salt, iterations },
    key,
    256,
  );
  return new Uint8Array(bits);
}

/**
 * A runtime-neutral {@link PasswordHasher} on Web Crypto PBKDF2-HMAC-SHA256, encoded as
 * `pbkdf2-sha256$<iterations>$<salt>$<digest>`. On Node, `scryptHasher` from `@gatehousejs/core/node`
 * is memory-hard and preferable.
 */
export function pbkdf2Hasher(options: Pbkdf2HasherOptions = {}): PasswordHasher {
  const iterations = options.iterations ?? 600_000;
  // The same bound as `verify` enforces on stored hashes, so every hash this makes can be verified.
  if (!Number.isInteger(iterations) || iterations < 1 || iterations > MAX_ITERATIONS) {
    throw new UsageError(
      `pbkdf2Hasher: iterations must be a whole number between 1 and ${MAX_ITERATIONS}`,
      'ERR_INVALID_ARGUMENT',
      'iterations',
    );
  }
  return {
    async hash(password) {
      const salt = crypto.getRandomValues(new Uint8Array(16));
      const digest = await derive(password, salt, iterations);
      return `${PREFIX}$${iterations}$${base64url(salt)}$${base64url(digest)}`;
    },
    async verify(password, encoded) {
      const [prefix, count, salt, expected] = encoded.split('$');
      const rounds = Number(count);
      if (
        prefix !== PREFIX ||
        !salt ||
        !expected ||
        !Number.isInteger(rounds) ||
        rounds < 1 ||
        rounds > MAX_ITERATIONS
      ) {
        return false;
      }
      let saltBytes: Uint8Array<ArrayBuffer>;
      let wanted: Uint8Array;
      try {
        saltBytes = fromBase64url(salt);
        wanted = fromBase64url(expected);
      } catch {
        return false; // not base64url: a malformed hash, never a match
      }
      const actual = await derive(password, saltBytes, rounds);
      let diff = actual.length ^ wanted.length;
      for (let i = 0; i < actual.length; i++) diff |= actual[i]! ^ (wanted[i] ?? 0);
      return diff === 0;
    },
  };
}
