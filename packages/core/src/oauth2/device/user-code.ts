import type { RandomBytes } from '../../tokens/secrets.js';

/*
 * User codes (RFC 8628 §6.1): what a person reads on a device and types on a phone. Eight letters
 * from an alphabet without vowels (no words can be spelled, none of 0/O, 1/I/L-style confusions
 * beyond what the alphabet keeps apart), shown as `XXXX-XXXX`, compared case- and
 * dash-insensitively. 20^8 ≈ 2^34.6 codes: enough only together with the guessing limits of
 * `guess-limit.ts` (§5.1), which security.md turns into a probability.
 */

/** The 20 consonants of RFC 8628 §6.1's example: no vowels, so no words. */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
/** Letters in a user code. */
export const USER_CODE_LENGTH = 8;
/** Number of distinct user codes: 20^8 = 25,600,000,000. */
export const USER_CODE_SPACE = USER_CODE_ALPHABET.length ** USER_CODE_LENGTH;
/** Longest `user_code` input looked at: more is not a code (whatever separators were typed). */
export const MAX_USER_CODE_INPUT = 32;

/**
 * A new user code, normalised (`BCDFGHJK`): each letter uniform over the alphabet, by rejection
 * sampling of random bytes (240 = 12 × 20, so bytes 240–255 are drawn again rather than biasing
 * the first letters).
 */
export function newUserCode(randomBytes: RandomBytes): string {
  let code = '';
  while (code.length < USER_CODE_LENGTH) {
    for (const byte of randomBytes(USER_CODE_LENGTH * 2)) {
      if (byte >= 240) continue;
      code += USER_CODE_ALPHABET[byte % USER_CODE_ALPHABET.length];
      if (code.length === USER_CODE_LENGTH) break;
    }
  }
  return code;
}

/**
 * The normalised form of what a person typed (upper case, dashes and spaces removed), or
 * `undefined` when it cannot be a user code (wrong length or letters): such input is no guess,
 * and is refused without a lookup.
 */
export function normalizeUserCode(input: string): string | undefined {
  if (input.length > MAX_USER_CODE_INPUT) return undefined;
  const code = input.replace(/[\s-]/g, '').toUpperCase();
  if (code.length !== USER_CODE_LENGTH) return undefined;
  for (const letter of code) if (!USER_CODE_ALPHABET.includes(letter)) return undefined;
  return code;
}

/** A normalised user code as shown: `BCDF-GHJK` (§6.1: separated for readability). */
export function formatUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}
