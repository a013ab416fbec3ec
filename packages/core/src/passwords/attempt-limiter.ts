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
 */
export interface AttemptLimiter {
  /** Throws 429 `too_many_requests` when this username/address is over a limit. */
  check(): Promise<void>;
  /** Records a failed attempt. */
  failed(): Promise<void>;
  /** Records a success: forgets the failures of this username from this address. */
  succeeded(): Promise<void>;
}

export function attemptLimiter(ctx: Context, request: Request, username: string): AttemptLimiter {
  const address = ctx.rateLimit.clientAddress(request);
  const userKey = `pw:user:${username.length}:${username}@${address ?? '*'}`;
  const addressKey = address === undefined ? undefined : `pw:addr:${address}`;
  const windowMs = ctx.rateLimit.windowSeconds * 1000;
  const store = ctx.storage.rateLimits;

  return {
    async check() {
      const now = ctx.now();
      const [user, addr] = await Promise.all([store.get(userKey, now), addressKey ? store.get(addressKey, now) : null]);
      let resetAt = 0;
      if (user && user.count >= ctx.rateLimit.maxFailuresPerUsername) resetAt = user.resetAt;
      if (addr && addr.count >= ctx.rateLimit.maxFailuresPerAddress) resetAt = Math.max(resetAt, addr.resetAt);
      if (resetAt > 0) {
        const retryAfter = Math.max(1, Math.ceil((resetAt - now) / 1000));
        throw new ProtocolError('too_many_requests', 'Too many failed attempts; try again later.', {
          status: 429,
          headers: { 'Retry-After': String(retryAfter) },
        });
      }
    },
    async failed() {
      const now = ctx.now();
      await Promise.all([store.increment(userKey, windowMs, now), addressKey ? store.increment(addressKey, windowMs, now) : null]);
    },
    async succeeded() {
      await store.reset(userKey);
    },
  };
}
