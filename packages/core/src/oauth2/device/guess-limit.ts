import type { Context } from '../../context.js';
import { sha256Base64url } from '../../crypto/sha256.js';
import { networkPayer, tooManyRequests } from '../../http/address-rate-limit.js';
import { fairShareBudget, type Payer, singlePayer } from '../../storage/kv/fair-share.js';
import { secondsToMs } from '../../time.js';
import type { DeviceAuthorizationSettings } from './settings.js';

/*
 * Bounds on guessing user codes at the verification page (RFC 8628 §5.1: "the authorization server
 * SHOULD rate limit user_code attempts"; §5.2: against a remote attacker enumerating codes), on
 * the instance's fair-share budgets (`storage/kv/fair-share.ts`), in fixed windows of one code
 * lifetime (`deviceAuthorization` options). Every lookup of a typed code is charged *before* the
 * lookup (atomic increments), so that a burst of concurrent guesses cannot all pass:
 *
 * - a signed-in user's lookups to the user: `maxLookupsPerAddress` (20) per user. Nothing else
 *   limits them, so a flood of anonymous guesses never refuses a person who signed in;
 * - an anonymous lookup to its client network: `maxLookupsPerAddress` per address, eight times as
 *   many per /24 or /48 aggregate; and, all anonymous lookups together, those that found *no* code,
 *   `maxFailedLookups` (1,000), so that an attacker spread over many networks is bounded too (read
 *   before the lookup and charged after a miss: concurrent misses pass it by at most the lookups in
 *   flight, each bounded per network).
 *
 * An anonymous lookup over a limit is not refused: it is not made, and the person is asked to sign
 * in first (`verification.ts`); the code is then looked up on their account. A signed-in user over
 * their own share gets 429 with `Retry-After`. Reaching a limit emits `quota.reached` once per
 * window. A refusal writes nothing. Keys are fixed-size digests. security.md gives the resulting
 * chance of a guess succeeding within a code's lifetime.
 */

const ANONYMOUS_MISSES = 'device-guess:anonymous';

/** What {@link GuessLimiter.reserve} decided. */
export type Reservation = 'reserved' | 'sign-in-first';

/** The limiter of one user code lookup. */
export interface GuessLimiter {
  /**
   * Charges the lookup: `reserved`, or `sign-in-first` for an anonymous lookup over a limit
   * (charged nothing, nothing to look up). Throws 429 when a signed-in user is over their share.
   */
  reserve(): Promise<Reservation>;
  /** The lookup found no code: an anonymous one is charged to the failure counter. */
  missed(): Promise<void>;
}

/** The limiter of a lookup from `request`, by `userId` when someone is signed in. */
export function guessLimiter(
  ctx: Pick<Context, 'clock' | 'emit' | 'storage' | 'limits'>,
  settings: DeviceAuthorizationSettings,
  request: Request,
  userId: string | undefined,
): GuessLimiter {
  const store = ctx.storage.rateLimits;
  const { codeLifetimeSeconds, maxLookupsPerAddress, maxFailedLookups } = settings;
  const windowMs = secondsToMs(codeLifetimeSeconds);
  const budget = fairShareBudget(store, 'device-lookup', windowMs);
  const reached = (payer: 'user' | 'network' | 'anonymous') =>
    ctx.emit({ type: 'quota.reached', quota: 'device-lookup', payer });
  return {
    async reserve() {
      const now = ctx.clock.now();
      if (userId !== undefined) {
        const payer = singlePayer(`user:${await sha256Base64url(userId)}`, maxLookupsPerAddress);
        const charge = await budget.charge(payer, now);
        if (!charge.charged)
          throw tooManyRequests(
            'Too many codes were tried. Wait a while, then try again.',
            charge.retryAt,
            now,
          );
        if (charge.filled) reached('user');
        return 'reserved';
      }
      const misses = await store.get(ANONYMOUS_MISSES, now);
      if (misses && misses.count >= maxFailedLookups) return 'sign-in-first';
      const payer: Payer = await networkPayer(ctx, request, maxLookupsPerAddress);
      const charge = await budget.charge(payer, now);
      if (!charge.charged) return 'sign-in-first';
      if (charge.filled) reached('network');
      return 'reserved';
    },
    async missed() {
      if (userId !== undefined) return;
      const window = await store.increment(ANONYMOUS_MISSES, windowMs, ctx.clock.now());
      if (window.count === maxFailedLookups) reached('anonymous');
    },
  };
}
