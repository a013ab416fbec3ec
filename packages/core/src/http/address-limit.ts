import type { Context } from '../context.js';
import { oauthError } from '../errors.js';
import { secondsToMs, secondsUntil } from '../time.js';
import { sha256Base64url } from '../tokens/sha256.js';
import { clientNetwork } from './client-network.js';

/** One fixed-window limit per client network. */
export interface AddressLimit {
  /** The key prefix in the rate-limit store (e.g. `reg:addr`). */
  readonly prefix: string;
  readonly max: number;
  readonly windowSeconds: number;
  /** The `error_description` of the 429. */
  readonly description: string;
}

/**
 * Where a {@link chargeClientNetwork} counts: the context, or any store (the fetches of client ID
 * metadata documents and key sets count on a bounded table of their process).
 */
export interface AddressLimitCounters {
  readonly rateLimit: Pick<Context['rateLimit'], 'clientAddress'>;
  readonly storage: Pick<Context['storage'], 'rateLimits'>;
  readonly now: () => number;
}

/**
 * Charges one request to the client address of `request` (IPv6: its /64, like the password
 * limiter), in a fixed window on the rate-limit store; over `limit.max` it throws 429
 * `too_many_requests` with `Retry-After`. A refusal writes nothing (the window is read first), and
 * the key is a digest of fixed size whatever the address. Requests without a known address share
 * one bucket, limited like one address. The one per-address budget of what an anonymous request
 * costs: RFC 7591 registrations, pushed requests, metadata document and key set fetches.
 */
export async function chargeClientNetwork(
  ctx: AddressLimitCounters,
  request: Request,
  limit: AddressLimit,
): Promise<void> {
  const address = ctx.rateLimit.clientAddress(request);
  const network = address === undefined ? 'unknown' : await sha256Base64url(clientNetwork(address));
  const key = `${limit.prefix}:${network}`;
  const store = ctx.storage.rateLimits;
  const now = ctx.now();
  const tooMany = (resetAt: number) =>
    oauthError('too_many_requests', limit.description, {
      retryAfter: Math.max(1, secondsUntil(resetAt, now)),
    });
  const current = await store.get(key, now);
  if (current && current.count >= limit.max) throw tooMany(current.resetAt);
  const charged = await store.increment(key, secondsToMs(limit.windowSeconds), now);
  if (charged.count > limit.max) throw tooMany(charged.resetAt);
}
