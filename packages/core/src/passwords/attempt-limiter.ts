import type { Context } from '../context.js';
import { ProtocolError } from '../errors.js';

/**
 * Brute-force protection for password checks (login page and Auth API), on the rate-limit store.
 *
 * Policy: failures are counted per (username, client address) and per client address, in fixed
 * windows of `rateLimit.windowSeconds`. Over either limit, further attempts from that address are
 * refused with 429 and `Retry-After` until the window ends, without checking the password. The
 * real user is never locked out from other addresses, and never for longer than one window; a
 * success resets the (username, address) counter. When the client address is unknown, the
 * username alone keys the counter (an attacker can then delay, not break, that account).
 *
 * The (username, address) counter is charged by {@link AttemptLimiter.check}, before the password
 * is verified, so that a burst of concurrent guesses cannot all pass the check before the first
 * failure is recorded; a success then clears it. Usernames are compared case- and
 * normalisation-insensitively (NFKC, lower case), so that `Demo` and `demo` share a counter even
 * when the host's user store treats them as one account.
 */
export interface AttemptLimiter {
  /**
   * Reserves an attempt: counts it against this username/address, and throws 429
   * `too_many_requests` (with `Retry-After`) when that or the address is over its limit.
   */
  check(): Promise<void>;
  /** Records that the reserved attempt failed (counts it against the address). */
  failed(): Promise<void>;
  /** Records a success: forgets the failures of this username from this address. */
  succeeded(): Promise<void>;
}

/** The limiter of one password attempt for `username` from the client address of `request`. */
export function attemptLimiter(ctx: Context, request: Request, username: string): AttemptLimiter {
  const address = ctx.rateLimit.clientAddress(request);
  const name = username.normalize('NFKC').toLowerCase();
  // The length prefix keeps the key unambiguous whatever characters the username and address hold.
  const userKey = `pw:user:${name.length}:${name}@${address ?? '*'}`;
  const addressKey = address === undefined ? undefined : `pw:addr:${address}`;
  const windowMs = ctx.rateLimit.windowSeconds * 1000;
  const store = ctx.storage.rateLimits;

  return {
    async check() {
      const now = ctx.now();
      const [user, addr] = await Promise.all([
        store.increment(userKey, windowMs, now),
        addressKey ? store.get(addressKey, now) : null,
      ]);
      let resetAt = 0;
      // `user` already includes this attempt: up to `maxFailuresPerUsername` failures are allowed.
      if (user.count > ctx.rateLimit.maxFailuresPerUsername) resetAt = user.resetAt;
      if (addr && addr.count >= ctx.rateLimit.maxFailuresPerAddress)
        resetAt = Math.max(resetAt, addr.resetAt);
      if (resetAt > 0) {
        const retryAfter = Math.max(1, Math.ceil((resetAt - now) / 1000));
        throw new ProtocolError('too_many_requests', 'Too many failed attempts; try again later.', {
          status: 429,
          headers: { 'Retry-After': String(retryAfter) },
        });
      }
    },
    async failed() {
      if (addressKey) await store.increment(addressKey, windowMs, ctx.now());
    },
    async succeeded() {
      await store.reset(userKey);
    },
  };
}
