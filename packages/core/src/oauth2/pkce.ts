import type { Awaitable } from '../awaitable.js';
import { sha256Base64url } from '../crypto/sha256.js';
import { timingSafeEqual } from '../tokens/secrets.js';

/** RFC 7636 §4.1: code_verifier = 43*128unreserved. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** The S256 challenge is base64url(SHA-256), 43 characters. */
const CHALLENGE = /^[A-Za-z0-9\-_]{43}$/;

export function isValidCodeVerifier(verifier: string): boolean {
  return VERIFIER.test(verifier);
}

export function isValidCodeChallenge(challenge: string): boolean {
  return CHALLENGE.test(challenge);
}

/**
 * RFC 7636 §4.6: BASE64URL(SHA256(ASCII(code_verifier))) == code_challenge. The answer itself where
 * the runtime hashes synchronously (see `sha256Base64url`), else a promise.
 */
export function verifyS256(verifier: string, challenge: string): Awaitable<boolean> {
  const digest = sha256Base64url(verifier);
  return digest instanceof Promise
    ? digest.then((text) => timingSafeEqual(text, challenge))
    : timingSafeEqual(digest, challenge);
}
