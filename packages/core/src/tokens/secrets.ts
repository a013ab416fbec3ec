import type { Awaitable } from '../awaitable.js';
import { base64url } from '../crypto/encoding.js';
import { sha256Base64url } from '../crypto/sha256.js';

/** Source of cryptographically secure random bytes (injectable for tests). */
export type RandomBytes = (length: number) => Uint8Array;

/** Bytes drawn from the CSPRNG at a time by {@link webRandomBytes}. */
const POOL_BYTES = 4096;
let pool = new Uint8Array(0);
let poolOffset = 0;

/**
 * Web Crypto's CSPRNG, available on every runtime Gatehouse supports, drawn 4 KiB at a time: each
 * `getRandomValues` call costs ~1–3 µs whatever its size, and a token request needs three or four
 * random values (the same batching Node applies to `randomUUID`). Bytes handed out are wiped from
 * the pool, so it never holds a secret already issued; requests over 1 KiB bypass it.
 */
export const webRandomBytes: RandomBytes = (length) => {
  if (length > POOL_BYTES / 4) return crypto.getRandomValues(new Uint8Array(length));
  if (poolOffset + length > pool.length) {
    pool = crypto.getRandomValues(new Uint8Array(POOL_BYTES));
    poolOffset = 0;
  }
  const end = poolOffset + length;
  const bytes = pool.slice(poolOffset, end);
  pool.fill(0, poolOffset, end);
  poolOffset = end;
  return bytes;
};

/**
 * A new opaque secret (code, refresh token, session id, CSRF token): 256 random bits, base64url.
 * 256 bits leaves no room for guessing even at billions of attempts per second.
 */
export function randomSecret(randomBytes: RandomBytes = webRandomBytes, bytes = 32): string {
  return base64url(randomBytes(bytes));
}

/**
 * The form in which a secret is stored and looked up: SHA-256, base64url. Secrets are high-entropy
 * random values, so a fast unsalted hash is enough to make a stolen table useless.
 */
export async function hashSecret(secret: string): Promise<string> {
  return secretHash(secret);
}

/**
 * {@link hashSecret}, as the text itself where the runtime hashes synchronously (Node, Bun, Deno:
 * see `sha256Base64url`), else a promise: what the token endpoint's paths use, where every promise
 * awaited is a turn of the microtask queue (a refresh hashes three values).
 */
export function secretHash(secret: string): Awaitable<string> {
  return sha256Base64url(secret);
}

/**
 * Compares two strings in time that does not depend on where they differ. Their lengths are not
 * hidden: every caller compares values whose length is public and fixed (stored SHA-256 hashes,
 * PKCE challenges, CSRF tokens), so unequal lengths are answered at once.
 */
export function timingSafeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** Hash to store in {@link ClientRecord.secretHash} for a client secret. */
export function hashClientSecret(secret: string): Promise<string> {
  return hashSecret(secret);
}

/** A new client secret: 256 random bits, base64url. */
export function generateClientSecret(): string {
  return randomSecret();
}
