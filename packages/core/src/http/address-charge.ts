import { oauthError } from '../errors.js';
import type { RateLimitStore } from '../storage/types.js';
import { type EpochMs, secondsToMs, secondsUntil } from '../time.js';
import { sha256Base64url } from '../tokens/sha256.js';
import { clientNetwork } from './client-network.js';

/** A budget of actions per client address and window. */
export interface AddressBudget {
  /** Actions accepted per client address (IPv6: per /64) and window. */
  readonly maxPerAddress: number;
  /** The window, in seconds. */
  readonly windowSeconds: number;
}

/** Where an {@link addressCharge} keeps its counters and how it tells callers apart. */
export interface AddressChargeStore {
  readonly store: RateLimitStore;
  readonly clientAddress: (request: Request) => string | undefined;
  readonly now: () => EpochMs;
}

/**
 * A charge of one action to the client address of a request (IPv6: its /64, like the password
 * limiter), in a fixed window on `limits.store` (registrations: the instance's rate-limit store,
 * shared by its processes; fetches: a bounded table of the process); over `maxPerAddress` it throws 429
 * `too_many_requests` with `Retry-After` and `refusal` as description. A refusal writes nothing
 * (the window is read first), and the key (`{bucket}:addr:{digest}`) has a fixed size whatever
 * the address. Requests without a known address share one bucket, limited like one address.
 *
 * The one per-address budget of anything an anonymous request makes the server do at a cost:
 * RFC 7591 registrations, client ID metadata document fetches, `jwks_uri` fetches.
 */
export function addressCharge(
  limits: AddressChargeStore,
  bucket: string,
  budget: AddressBudget,
  refusal: string,
): (request: Request) => Promise<void> {
  return async (request) => {
    const address = limits.clientAddress(request);
    const network = address === undefined ? 'unknown' : await sha256Base64url(clientNetwork(address));
    const key = `${bucket}:addr:${network}`;
    const now = limits.now();
    const tooMany = (resetAt: number) =>
      oauthError('too_many_requests', refusal, { retryAfter: Math.max(1, secondsUntil(resetAt, now)) });
    const current = await limits.store.get(key, now);
    if (current && current.count >= budget.maxPerAddress) throw tooMany(current.resetAt);
    const charged = await limits.store.increment(key, secondsToMs(budget.windowSeconds), now);
    if (charged.count > budget.maxPerAddress) throw tooMany(charged.resetAt);
  };
}
