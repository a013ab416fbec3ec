import type { Context } from '../context.js';
import { oauthError, type ProtocolError } from '../errors.js';
import { type Milliseconds, secondsToMs, secondsUntil } from '../time.js';
import { sha256Base64url } from '../tokens/sha256.js';
import { clientNetwork } from './client-network.js';

/**
 * The rate-limit key part of a request's client address: a fixed-size digest of its network (an
 * IPv6 /64 is one client, `clientNetwork`), or `unknown` for requests without a known address,
 * which share one bucket limited like one address (never a more lenient one).
 */
export async function addressBucket(
  ctx: { readonly rateLimit: Pick<Context['rateLimit'], 'clientAddress'> },
  request: Request,
): Promise<string> {
  const address = ctx.rateLimit.clientAddress(request);
  return address === undefined ? 'unknown' : sha256Base64url(clientNetwork(address));
}

/** Where windows are counted: the instance's rate-limit store, or any other (a bounded table). */
export interface WindowCounters {
  readonly storage: Pick<Context['storage'], 'rateLimits'>;
  readonly now: () => number;
}

/**
 * Charges one to the fixed window `key` of the rate-limit store; at `max` already (read first, so
 * a refusal writes nothing) or beyond after the atomic increment (a concurrent burst), throws
 * `refused(retryAfterSeconds)`.
 */
export async function chargeWindow(
  ctx: WindowCounters,
  key: string,
  max: number,
  windowMs: Milliseconds,
  refused: (retryAfterSeconds: number) => ProtocolError,
): Promise<void> {
  const store = ctx.storage.rateLimits;
  const now = ctx.now();
  const retry = (resetAt: number) => refused(Math.max(1, secondsUntil(resetAt, now)));
  const current = await store.get(key, now);
  if (current && current.count >= max) throw retry(current.resetAt);
  const charged = await store.increment(key, windowMs, now);
  if (charged.count > max) throw retry(charged.resetAt);
}

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
 * Charges one request to the client network of `request` ({@link addressBucket}) in `limit`'s
 * fixed window ({@link chargeWindow}); over `limit.max` it throws 429 `too_many_requests` with
 * `Retry-After`. The fetches of client ID metadata documents and key sets count on a bounded table
 * of their process rather than the instance's store (`resolve-options.ts`).
 */
export async function chargeClientNetwork(
  ctx: WindowCounters & { readonly rateLimit: Pick<Context['rateLimit'], 'clientAddress'> },
  request: Request,
  limit: AddressLimit,
): Promise<void> {
  const key = `${limit.prefix}:${await addressBucket(ctx, request)}`;
  await chargeWindow(ctx, key, limit.max, secondsToMs(limit.windowSeconds), (retryAfter) =>
    oauthError('too_many_requests', limit.description, { retryAfter }),
  );
}
