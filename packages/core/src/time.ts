/**
 * Time units, in one place. Gatehouse speaks three units at its edges and converts only here:
 *
 * - {@link Seconds}: durations in options (`accessTokenTtl`, `session.idleTimeout`, …);
 * - {@link EpochMs}: instants of the instance clock (`now()`) and of every storage record;
 * - {@link EpochSeconds}: JWT NumericDate claims (RFC 7519 §2: `iat`, `exp`), `Caller.expiresAt`
 *   and introspection answers (RFC 7662 §2.2).
 *
 * The aliases are documentation, not brands: a host's engine receives and returns plain numbers,
 * and a brand would force a cast on every record it builds. What must not vary is the rounding, so
 * it has one rule, used by the core and by every engine: instants round down, expiries round up,
 * so that rounding never extends what the caller granted by more than 1 ms (or 1 s), and never
 * ends it early. The bearer check's repeated path (tokens/verified-token-cache.ts and
 * `isAccessTokenRevoked`) applies two of these rules inline, saying which: it runs on every API call.
 */

/** Milliseconds since the Unix epoch (instance clock, storage records). */
export type EpochMs = number;
/** Seconds since the Unix epoch (JWT NumericDate, RFC 7519 §2). */
export type EpochSeconds = number;
/** A duration in seconds (options). */
export type Seconds = number;
/** A duration in milliseconds. */
export type Milliseconds = number;

/** The instant `ttl` seconds after `from`. */
export function addSeconds(from: EpochMs, ttl: Seconds): EpochMs {
  return from + ttl * 1000;
}

/** A duration in seconds as milliseconds. */
export function secondsToMs(duration: Seconds): Milliseconds {
  return duration * 1000;
}

/** An instant as a JWT NumericDate, rounded down (an `iat` is never in the future). */
export function toEpochSeconds(instant: EpochMs): EpochSeconds {
  return Math.floor(instant / 1000);
}

/** A JWT NumericDate as epoch milliseconds (exact). */
export function fromEpochSeconds(instant: EpochSeconds): EpochMs {
  return instant * 1000;
}

/**
 * An instant (now, issuedAt, lastSeenAt, consumedAt…) as a whole millisecond, rounded down: for
 * engines whose storage takes integers (SQL `bigint`, Redis scripts).
 */
export function wholeInstant(instant: EpochMs): EpochMs {
  return Math.floor(instant);
}

/** An expiry or a duration as a whole millisecond, rounded up (see {@link wholeInstant}). */
export function wholeExpiry(expiry: EpochMs): EpochMs {
  return Math.ceil(expiry);
}

/** Whole seconds from `now` until `end`, rounded up (`Retry-After`, `expires_in`): never early. */
export function secondsUntil(end: EpochMs, now: EpochMs): Seconds {
  return Math.ceil((end - now) / 1000);
}
