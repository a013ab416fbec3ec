import type { Context } from '../context.js';
import { ProtocolError } from '../errors.js';

/**
 * Brute-force protection for password checks (login page and Auth API), on the rate-limit store.
 *
 * Policy: failures are counted per (username, client address) and per client address, in fixed
 * windows of `rateLimit.windowSeconds` (defaults: 5 per username and address, 50 per address, 15
 * minutes). Over either limit, further attempts from that address are refused with 429 and
 * `Retry-After` until the window ends, without checking the password. The real user is never
 * locked out from other addresses, and never for longer than one window; a success forgets the
 * (username, address) failures. When the client address is unknown (an adapter that cannot vouch
 * for one), the username alone keys the counter: an attacker can then delay that account by one
 * window at a time, not guess its password.
 *
 * Every attempt is charged by {@link AttemptLimiter.reserve} *before* the password is verified, so
 * that a burst of concurrent guesses cannot all pass the check before the first failure is
 * recorded (the counters are atomic increments). A success then refunds it: the (username,
 * address) counter is reset, and the address counter is offset by a counter of successes, so that
 * many users behind one address (a NAT) are only limited by their failures. Usernames are compared
 * case- and normalisation-insensitively (NFKC, lower case), so that `Demo` and `demo` share a
 * counter even when the host's user store treats them as one account.
 */
export interface AttemptLimiter {
  /**
   * Charges one attempt against this username/address and this address; throws 429
   * `too_many_requests` (with `Retry-After`) when either is over its limit.
   */
  reserve(): Promise<void>;
  /** The attempt succeeded: refunds it and forgets this username's failures from this address. */
  succeeded(): Promise<void>;
}

/** The limiter of one password attempt for `username` from the client address of `request`. */
export function attemptLimiter(ctx: Context, request: Request, username: string): AttemptLimiter {
  const address = ctx.rateLimit.clientAddress(request);
  const name = username.normalize('NFKC').toLowerCase();
  // The length prefix keeps the key unambiguous whatever characters the username and address hold.
  const userKey = `pw:user:${name.length}:${name}@${address ?? '*'}`;
  const addressKey = address === undefined ? undefined : `pw:addr:${address}`;
  const addressSuccessKey = address === undefined ? undefined : `pw:addr-ok:${address}`;
  const windowMs = ctx.rateLimit.windowSeconds * 1000;
  const store = ctx.storage.rateLimits;

  return {
    async reserve() {
      const now = ctx.now();
      const [user, attempts, successes] = await Promise.all([
        store.increment(userKey, windowMs, now),
        addressKey ? store.increment(addressKey, windowMs, now) : null,
        addressSuccessKey ? store.get(addressSuccessKey, now) : null,
      ]);
      let resetAt = 0;
      // Both counts include this attempt: up to the configured number of failures get through.
      if (user.count > ctx.rateLimit.maxFailuresPerUsername) resetAt = user.resetAt;
      if (attempts && attempts.count - (successes?.count ?? 0) > ctx.rateLimit.maxFailuresPerAddress) {
        resetAt = Math.max(resetAt, attempts.resetAt);
      }
      if (resetAt > 0) {
        const retryAfter = Math.max(1, Math.ceil((resetAt - now) / 1000));
        throw new ProtocolError('too_many_requests', 'Too many failed attempts; try again later.', {
          status: 429,
          headers: { 'Retry-After': String(retryAfter) },
        });
      }
    },
    async succeeded() {
      await Promise.all([
        store.reset(userKey),
        addressSuccessKey ? store.increment(addressSuccessKey, windowMs, ctx.now()) : null,
      ]);
    },
  };
}
