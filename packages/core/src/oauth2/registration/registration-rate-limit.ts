import type { Context } from '../../context.js';
import { oauthError } from '../../errors.js';
import { clientNetwork } from '../../passwords/client-network.js';
import { secondsToMs, secondsUntil } from '../../time.js';
import { sha256Base64url } from '../../tokens/sha256.js';
import type { DynamicRegistrationSettings } from './settings.js';

/**
 * Charges one registration to the client address of `request` (IPv6: its /64, like the password
 * limiter), in a fixed window on the rate-limit store; over `maxPerAddress` it throws 429
 * `too_many_requests` with `Retry-After`. A refusal writes nothing (the window is read first), and
 * the key is a digest of fixed size whatever the address. Requests without a known address share
 * one bucket, limited like one address.
 */
export async function chargeRegistration(
  ctx: Context,
  request: Request,
  settings: DynamicRegistrationSettings,
): Promise<void> {
  const address = ctx.rateLimit.clientAddress(request);
  const network = address === undefined ? 'unknown' : await sha256Base64url(clientNetwork(address));
  const key = `reg:addr:${network}`;
  const store = ctx.storage.rateLimits;
  const now = ctx.now();
  const tooMany = (resetAt: number) =>
    oauthError('too_many_requests', 'Too many client registrations from this address; try again later.', {
      retryAfter: Math.max(1, secondsUntil(resetAt, now)),
    });
  const current = await store.get(key, now);
  if (current && current.count >= settings.maxPerAddress) throw tooMany(current.resetAt);
  const charged = await store.increment(key, secondsToMs(settings.windowSeconds), now);
  if (charged.count > settings.maxPerAddress) throw tooMany(charged.resetAt);
}
