import type { Context } from '../context.js';
import { sha256Base64url } from '../crypto/sha256.js';
import { oauthError, type ProtocolError } from '../errors.js';
import { clientNetwork, networkAggregate } from '../http/client-network.js';
import type { RateLimitWindow } from '../storage/types.js';

/**
 * Brute-force protection for password checks (login page and Auth API), on the rate-limit store.
 *
 * Policy (defaults: 5 failures per username and address, 50 per address, 15-minute window):
 * - **Per (username, client address)**: failures in a fixed window of `rateLimit.windowSeconds`,
 *   starting at the first failure. A success forgets them. The real user is never locked out from
 *   other addresses, and never for longer than one window.
 * - **Per client address**, all usernames together: *failures only* (ASVS 5.0 V6.3.1), in a sliding
 *   window estimated from two fixed buckets aligned to the window length: the failures of the
 *   current bucket, plus those of the previous one weighted by how much of it the sliding window
 *   still covers. So neither a new window nor successful logins wipe the slate: each success
 *   refunds only its own attempt, in the bucket that attempt was charged to (successes are counted
 *   per bucket beside the attempts, and never outnumber them), and many users behind one NAT are
 *   limited only by their failures.
 * - Over either limit, attempts are refused with 429 and `Retry-After` (when one more attempt would
 *   fit again), without checking the password.
 *
 * Bounded state: the store is keyed by fixed-size SHA-256 digests (of the client network, and of
 * the network with the normalised username), never by the raw username or address, so an
 * attempt's keys are a few dozen bytes whatever it sent. A refusal writes nothing: the counters are
 * read first, and an attempt over a limit stops there. An attempt under the limits is charged
 * before the password is verified, so that a burst of concurrent guesses cannot all pass before
 * the first failure is recorded (the increments are atomic): the address first, and the
 * per-username counter only once the address has room, so even such a burst creates at most
 * `maxFailuresPerAddress` per-username counters per address and window. An attempt refused by an
 * increment in such a race stays counted.
 *
 * Addresses are counted by network ({@link clientNetwork}: an IPv6 /64 is one client). A request
 * without a known address shares one "unknown address" bucket, limited like an address: never a
 * more lenient one. Credentials beyond `CREDENTIAL_LIMITS` (`username` undefined) are charged to
 * the address only: they never create a per-username counter. Usernames are compared case- and
 * normalisation-insensitively (NFKC, lower case), so that `Demo` and `demo` share a counter even
 * when the host's user store treats them as one account.
 */
export interface AttemptLimiter {
  /**
   * Checks the limits and charges one attempt to this address (and username); throws 429
   * `too_many_requests` (with `Retry-After`), writing nothing, when it would exceed either.
   */
  reserve(): Promise<void>;
  /** The reserved attempt succeeded: refunds it and forgets this username's failures from this address. */
  succeeded(): Promise<void>;
}

/** The address of requests whose client address nobody knows; never equal to a digest (43 characters). */
const UNKNOWN_ADDRESS = 'unknown';

/**
 * The limiter of one password attempt for `username` from the client address of `request`;
 * `username` is `undefined` when the credentials are beyond the limits (the address alone is charged).
 */
export function attemptLimiter(
  ctx: Pick<Context, 'storage' | 'limits' | 'clock'>,
  request: Request,
  username: string | undefined,
): AttemptLimiter {
  const store = ctx.storage.rateLimits;
  const { maxFailuresPerAddress, maxFailuresPerUsername } = ctx.limits.rateLimit;
  const windowMs = ctx.limits.rateLimit.windowSeconds * 1000;
  const keys = limiterKeys(ctx.limits.rateLimit.clientAddress(request), username);
  /** The address bucket the reserved attempt was charged to. */
  let chargedBucket: number | undefined;

  /** A bucket's key lives until the end of the next bucket, while the sliding window still covers it. */
  const bucketLifetime = (bucket: number, now: number) => (bucket + 2) * windowMs - now;

  return {
    async reserve() {
      const { attemptsKey, successesKey, userKey, write } = await keys;
      const now = ctx.clock.now();
      const bucket = Math.floor(now / windowMs);
      const intoBucket = now - bucket * windowMs;
      const [attempts, successes, previousAttempts, previousSuccesses, user] = await Promise.all([
        store.get(attemptsKey(bucket), now),
        store.get(successesKey(bucket), now),
        store.get(attemptsKey(bucket - 1), now),
        store.get(successesKey(bucket - 1), now),
        userKey === undefined ? null : store.get(userKey, now),
      ]);
      const previous = failures(previousAttempts, previousSuccesses);
      const slidingWindow = (current: number) => current + previous * (1 - intoBucket / windowMs);
      const addressRetry = (current: number) =>
        addressRetryMs(maxFailuresPerAddress, current, previous, intoBucket, windowMs);

      // Refusals write nothing: the counters are read before anything is charged.
      const current = failures(attempts, successes);
      let retryMs: number | undefined;
      if (slidingWindow(current + 1) > maxFailuresPerAddress) retryMs = addressRetry(current);
      if (user && user.count >= maxFailuresPerUsername) retryMs = Math.max(retryMs ?? 0, user.resetAt - now);
      if (retryMs !== undefined) throw tooManyAttempts(retryMs);

      // The address first: an attempt it refuses never creates a per-username counter.
      const charged = await store.increment(attemptsKey(bucket), bucketLifetime(bucket, now), now, write);
      chargedBucket = bucket;
      const counted = failures(charged, successes);
      if (slidingWindow(counted) > maxFailuresPerAddress) throw tooManyAttempts(addressRetry(counted));
      if (userKey !== undefined) {
        const perUser = await store.increment(userKey, windowMs, now, write);
        if (perUser.count > maxFailuresPerUsername) throw tooManyAttempts(perUser.resetAt - now);
      }
    },
    async succeeded() {
      const { successesKey, userKey, write } = await keys;
      const now = ctx.clock.now();
      const bucket = chargedBucket;
      await Promise.all([
        userKey === undefined ? null : store.reset(userKey),
        bucket === undefined || bucketLifetime(bucket, now) <= 0
          ? null
          : store.increment(successesKey(bucket), bucketLifetime(bucket, now), now, write),
      ]);
    },
  };
}

/** The store keys of one attempt: fixed-size digests, whatever the username and address hold. */
async function limiterKeys(address: string | undefined, username: string | undefined) {
  const network = address ? await sha256Base64url(clientNetwork(address)) : UNKNOWN_ADDRESS;
  // The counters are charged to the network's aggregate: a full memory store makes room from the
  // heaviest aggregate's counters and refuses its new ones meanwhile, never resetting a limit.
  const aggregate = address ? await sha256Base64url(networkAggregate(address)) : UNKNOWN_ADDRESS;
  const name = username?.normalize('NFKC').toLowerCase();
  // The network digest has a fixed form without a newline: the pair is unambiguous.
  const userKey = name === undefined ? undefined : `pw:user:${await sha256Base64url(`${network}\n${name}`)}`;
  return {
    attemptsKey: (bucket: number) => `pw:addr:${network}:${bucket}`,
    successesKey: (bucket: number) => `pw:addr-ok:${network}:${bucket}`,
    userKey,
    write: { partition: `net:${aggregate}` },
  };
}

/** Failed attempts of a bucket: its attempts less the successes refunded to it. */
function failures(attempts: RateLimitWindow | null, successes: RateLimitWindow | null): number {
  return Math.max(0, (attempts?.count ?? 0) - (successes?.count ?? 0));
}

/**
 * Milliseconds until one more attempt fits under `max` in the sliding window, with `current`
 * failures in the current bucket, `previous` in the one before, `into` ms into the current bucket.
 */
function addressRetryMs(
  max: number,
  current: number,
  previous: number,
  into: number,
  windowMs: number,
): number {
  if (current + 1 <= max) {
    // Within this bucket, once the previous one weighs at most what is left.
    const fraction = previous === 0 ? 0 : 1 - (max - current - 1) / previous;
    return fraction * windowMs - into;
  }
  // This bucket is full by itself: into the next one, once this one weighs at most max - 1.
  return windowMs - into + (1 - (max - 1) / current) * windowMs;
}

/** 429 `too_many_requests` with `Retry-After` in whole seconds (at least 1). */
function tooManyAttempts(retryMs: number): ProtocolError {
  return oauthError('too_many_requests', 'Too many failed attempts; try again later.', {
    retryAfter: Math.max(1, Math.ceil(retryMs / 1000)),
  });
}
