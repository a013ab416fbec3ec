import type { EpochMs } from '../time.js';
import type { AccessTokenClaims } from './access-token-claims.js';

/** Default bound of {@link VerifiedTokenCache}: enough for the live tokens of a busy API, a few MB. */
export const DEFAULT_VERIFIED_TOKEN_CACHE_SIZE = 10_000;

/** One cached token. */
export interface VerifiedTokenEntry {
  /** The instance's cache that verified it: only that instance is served the entry. */
  readonly owner: VerifiedTokenCache;
  /** The whole token: the map is keyed by its tail only (see {@link keyOf}). */
  readonly token: string;
  readonly claims: AccessTokenClaims;
  /** `nbf` of the token (epoch seconds), when it had one. */
  readonly notBefore: number | undefined;
}

/**
 * Remembers access tokens whose signature and claims were verified, keyed by the exact token
 * string, so that a token seen again skips the signature check (an ECDSA verify is ~80–120 µs,
 * about what a framework spends on a whole request). Only the *stateless* part of verification is
 * cached: revocation is checked against storage on every use, so a revoked token or grant stops
 * working at once. An entry is served only while the token's own `exp` (and `nbf`) would still pass
 * verification at the instance clock, with the same tolerance, so caching never extends a lifetime.
 *
 * Bounded: when full, the oldest entry is dropped (insertion order), so memory stays flat whatever
 * the traffic. Only verified tokens enter it, so a caller cannot fill it with garbage. One cache
 * per instance (it lives on the instance context). Instances of one `createGatehouseHost` draw on
 * one bounded table ({@link share}), so a process with thousands of instances holds at most
 * `maxEntries` tokens in total, not per instance; each entry names the cache that verified it, and
 * another instance's cache never serves it (its keys, issuer and audience were not checked).
 */
export class VerifiedTokenCache {
  readonly #entries: Map<string, VerifiedTokenEntry>;
  readonly #maxEntries: number;

  /** @param maxEntries Upper bound on cached tokens (at least 1), over every {@link share}d cache. */
  constructor(
    maxEntries: number = DEFAULT_VERIFIED_TOKEN_CACHE_SIZE,
    entries?: Map<string, VerifiedTokenEntry>,
  ) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1)
      throw new RangeError('maxEntries must be a positive integer.');
    this.#maxEntries = maxEntries;
    this.#entries = entries ?? new Map();
  }

  /**
   * A cache for another instance on the same bounded table: the bound is shared (the oldest entry
   * of any instance makes room), the entries are not (each cache serves only what it verified).
   */
  share(): VerifiedTokenCache {
    return new VerifiedTokenCache(this.#maxEntries, this.#entries);
  }

  /**
   * The cached claims of `token` if it was verified before and its lifetime still passes at `now`
   * (the instance clock) with `toleranceSeconds` (the rule of jose's `jwtVerify`: expired when
   * `exp <= now - tolerance`, premature when `nbf > now + tolerance`, `now` in whole seconds);
   * otherwise `undefined`.
   */
  get(token: string, now: EpochMs, toleranceSeconds: number): AccessTokenClaims | undefined {
    const entry = this.#entries.get(keyOf(token));
    if (entry === undefined || entry.token !== token || entry.owner !== this) return undefined;
    // `toEpochSeconds` of time.ts, inline: this is every repeated API call.
    const nowSeconds = Math.floor(now / 1000);
    if (entry.claims.exp <= nowSeconds - toleranceSeconds) {
      this.#entries.delete(keyOf(token));
      return undefined;
    }
    if (entry.notBefore !== undefined && entry.notBefore > nowSeconds + toleranceSeconds) return undefined;
    return entry.claims;
  }

  /** Remembers a token that just passed full (signature and claims) verification. */
  set(token: string, claims: AccessTokenClaims, notBefore?: number): void {
    const key = keyOf(token);
    if (this.#entries.has(key)) this.#entries.delete(key);
    else if (this.#entries.size >= this.#maxEntries) {
      // Map iterates in insertion order: the first key is the oldest entry.
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { owner: this, token, claims, notBefore });
  }

  /**
   * Forgets this cache's tokens for which `test` holds (those of a revoked signing key), so that
   * they are verified again; entries of other caches sharing the table stay.
   */
  forget(test: (token: string) => boolean): void {
    for (const [key, entry] of this.#entries) {
      if (entry.owner === this && test(entry.token)) this.#entries.delete(key);
    }
  }

  /** Number of cached tokens (of every cache sharing the table). */
  get size(): number {
    return this.#entries.size;
  }

  /** Forgets every token (of every cache sharing the table). */
  clear(): void {
    this.#entries.clear();
  }
}

/**
 * The map key of a token: its last 32 characters, part of the signature. Hashing a string costs
 * its length, and a JWT is ~700 characters, hashed anew for every request (each request's token is
 * a new string); the entry keeps the whole token, compared in full on every lookup, so a token that
 * merely ends like a cached one is a miss (and, unverified, never enters the cache to evict it).
 */
function keyOf(token: string): string {
  return token.length > 32 ? token.slice(-32) : token;
}
