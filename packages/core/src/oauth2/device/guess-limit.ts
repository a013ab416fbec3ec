import type { Context } from '../../context.js';
import { oauthError, type ProtocolError } from '../../errors.js';
import { addressBucket, chargeWindow } from '../../http/address-rate-limit.js';
import { secondsToMs, secondsUntil } from '../../time.js';

/*
 * Bounds on guessing user codes at the verification page (RFC 8628 §5.1: "the authorization server
 * SHOULD rate limit user_code attempts"; §5.2: against a remote attacker enumerating codes), on
 * the rate-limit store, in fixed windows of one code lifetime (`deviceAuthorization` options):
 *
 * - per client address (IPv6: its /64, like the password limiter): every lookup of a typed code,
 *   found or not, charged *before* the lookup (atomic increments), so that a burst of concurrent
 *   guesses cannot all pass; `maxLookupsPerAddress` (20). A person approving a device makes
 *   two or three lookups (the code form, the confirmation after a login, the decision).
 * - globally, all addresses together: lookups that found *no* code,
 *   `maxFailedLookups` (1,000), so that an attacker spread over many addresses is bounded
 *   too. It is read before the lookup and charged after a miss, so concurrent misses can pass it by
 *   at most the number of lookups in flight, themselves bounded per address.
 *
 * Over either, 429 `too_many_requests` with `Retry-After`, and no lookup is made. A refusal writes
 * nothing. Keys are fixed-size digests whatever the address. security.md gives the resulting
 * chance of a guess succeeding within a code's lifetime.
 */

const GLOBAL_KEY = 'device-guess:global';

const tooManyGuesses = (retryAfter: number): ProtocolError =>
  oauthError('too_many_requests', 'Too many codes were tried. Wait a while, then try again.', { retryAfter });

/** The limiter of one user code lookup from a request's address. */
export interface GuessLimiter {
  /** Charges the lookup to the address; throws 429 when either limit is reached, looking nothing up. */
  reserve(): Promise<void>;
  /** The lookup found no code: charges the global failure counter. */
  missed(): Promise<void>;
}

export function guessLimiter(ctx: Context, request: Request): GuessLimiter {
  const store = ctx.storage.rateLimits;
  const { codeLifetimeSeconds, maxLookupsPerAddress, maxFailedLookups } = ctx.deviceAuthorization;
  const windowMs = secondsToMs(codeLifetimeSeconds);
  return {
    async reserve() {
      const now = ctx.now();
      const global = await store.get(GLOBAL_KEY, now);
      if (global && global.count >= maxFailedLookups) {
        throw tooManyGuesses(Math.max(1, secondsUntil(global.resetAt, now)));
      }
      const key = `device-guess:addr:${await addressBucket(ctx, request)}`;
      await chargeWindow(ctx, key, maxLookupsPerAddress, windowMs, tooManyGuesses);
    },
    async missed() {
      await store.increment(GLOBAL_KEY, windowMs, ctx.now());
    },
  };
}
