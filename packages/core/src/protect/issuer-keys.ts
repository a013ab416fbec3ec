import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { guardedFetch, type OutboundFetch } from '../http/guarded-fetch.js';
import type { AddressPolicy } from '../http/ip-address.js';
import type { EpochMs, Milliseconds } from '../time.js';

/*
 * The issuer's published keys as `resourceServer()` sees them (its JWKS, RFC 7517 §5), fetched from
 * the one URL the host configured. A revoked key leaves the issuer's JWKS at once, but a verifier
 * only learns it when it fetches the set again: how long a fetched set is trusted is how long a
 * revoked key's tokens still pass here, so that time is bounded (the answer's `max-age`, within
 * TRUST_FLOOR_MS and TRUST_CAP_MS), and a token whose `kid` the set lacks (a key published since,
 * or one made up) makes it fetch again, at most once per REFETCH_MS so that made-up kids cannot
 * make every request a fetch.
 *
 * Not the BoundedFetchCache of URLs requests name: one configured URL needs no byte budget or
 * per-caller caps, and a failed refetch must not throw away a set that is still trusted.
 */

/** Longest a fetched set is trusted, whatever its `max-age` (the instance serves at most 300 s). */
export const TRUST_CAP_MS: Milliseconds = 300_000;
/** Shortest a fetched set is trusted (a `max-age` of 0 or `no-store` would make every request a fetch). */
export const TRUST_FLOOR_MS: Milliseconds = 30_000;
/** A token of a `kid` the set lacks makes it fetch again at most this often. */
export const REFETCH_MS: Milliseconds = 10_000;
/** A failed fetch is not retried for this long: a failing JWKS costs one fetch a second. */
const FAILURE_MS: Milliseconds = 1000;
/** Largest key set read: far above a real one (a few keys of a few hundred bytes each). */
const MAX_JWKS_BYTES = 256 * 1024;
/** Deadline of one fetch (connection, answer and body), as jose's remote key sets had. */
const TIMEOUT_MS: Milliseconds = 5000;

interface FetchedKeys {
  readonly keys: JWTVerifyGetKey;
  readonly fetchedAt: EpochMs;
  readonly trustedUntil: EpochMs;
}

/**
 * The key lookup of `jwtVerify` for the set at `url`, fetched with `transport` under `policy`
 * (the host configured the URL: it may be private, it must be https or loopback http). Throws
 * what the fetch threw (not a `JOSEError`: the caller answers 503) when no trusted set is at hand.
 */
export function issuerKeys(
  url: URL,
  transport: OutboundFetch,
  policy: AddressPolicy,
  now: () => EpochMs,
): JWTVerifyGetKey {
  let current: FetchedKeys | undefined;
  let inFlight: Promise<FetchedKeys> | undefined;
  let attemptedAt = Number.NEGATIVE_INFINITY;
  let failure: { readonly at: EpochMs; readonly error: unknown } | undefined;

  const fetchKeys = async (at: EpochMs): Promise<FetchedKeys> => {
    const { headers, body } = await guardedFetch(url, {
      policy,
      transport,
      maxBytes: MAX_JWKS_BYTES,
      timeoutMs: TIMEOUT_MS,
      accept: 'application/jwk-set+json, application/json',
    });
    let keys: JWTVerifyGetKey;
    try {
      keys = createLocalJWKSet(JSON.parse(body) as JSONWebKeySet);
    } catch (error) {
      // The issuer's fault, not the token's: answered 503 as a failed fetch is.
      throw new Error('The issuer key set is not a JWK Set.', { cause: error });
    }
    return { keys, fetchedAt: at, trustedUntil: at + trustedFor(headers) };
  };

  /** One fetch at a time (concurrent callers share it); a failure is remembered for FAILURE_MS. */
  const load = (at: EpochMs): Promise<FetchedKeys> => {
    if (inFlight) return inFlight;
    if (failure && at - failure.at < FAILURE_MS) return Promise.reject(failure.error);
    attemptedAt = at;
    inFlight = fetchKeys(at).then(
      (fetched) => {
        current = fetched;
        failure = undefined;
        return fetched;
      },
      (error: unknown) => {
        failure = { at, error };
        throw error;
      },
    );
    const settle = () => {
      inFlight = undefined;
    };
    inFlight.then(settle, settle);
    return inFlight;
  };

  return async (header, token) => {
    const at = now();
    const set = current !== undefined && at < current.trustedUntil ? current : await load(at);
    try {
      return await set.keys(header, token);
    } catch (error) {
      // An unknown kid: a key published since the set was fetched, or a made-up one (rate-limited).
      if (!(error instanceof errors.JWKSNoMatchingKey) || at - attemptedAt < REFETCH_MS) throw error;
      return (await load(at)).keys(header, token);
    }
  };
}

/**
 * How long a fetched set is trusted: the answer's freshness lifetime (RFC 9111 §4.2.1 `max-age`,
 * less its `Age`, §4.2.3; `no-store` and `no-cache` as 0), within TRUST_FLOOR_MS and
 * TRUST_CAP_MS; TRUST_CAP_MS without one.
 */
function trustedFor(headers: Headers): Milliseconds {
  const directives = (headers.get('cache-control') ?? '').toLowerCase();
  let seconds = TRUST_CAP_MS / 1000;
  if (/(?:^|,)\s*no-(?:store|cache)\b/.test(directives)) seconds = 0;
  else {
    const maxAge = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/.exec(directives);
    if (maxAge) seconds = Number(maxAge[1]) - (Number.parseInt(headers.get('age') ?? '0', 10) || 0);
  }
  return Math.min(TRUST_CAP_MS, Math.max(TRUST_FLOOR_MS, seconds * 1000));
}
