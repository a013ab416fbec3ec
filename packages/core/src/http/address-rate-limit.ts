import type { Context, RequestLimits } from '../context.js';
import { sha256Base64url } from '../crypto/sha256.js';
import { oauthError, type ProtocolError } from '../errors.js';
import type { GatehouseEvent } from '../events.js';
import { type Charge, fairShareBudget, type Payer } from '../storage/kv/fair-share.js';
import { isSelfRegistered } from '../storage/self-registered.js';
import type { ClientRecord } from '../storage/types.js';
import { type EpochMs, secondsToMs, secondsUntil } from '../time.js';
import { clientNetwork, networkAggregate } from './client-network.js';

/**
 * How many addresses' quotas a client network's aggregate (its /24 or /48, `networkAggregate`)
 * may use together: one party with a whole /24 or /48 gets 8 addresses' shares, not 256 or 65,536.
 */
export const AGGREGATE_SHARES = 8;

/** The rate-limit key part of requests without a known address: they share one network, limited like one. */
const UNKNOWN = 'unknown';

/**
 * The client network of `request` as it pays for what it makes the server store: its address
 * (`clientNetwork`: an IPv6 /64 is one client) with `perAddress` new entries per window, and its
 * aggregate (`networkAggregate`) with {@link AGGREGATE_SHARES} × `perAddress`; the entries are
 * written charged to the aggregate, the partition a full memory store evicts from. Requests
 * without a known address share one network (never a more lenient one). Names are fixed-size
 * digests whatever the address.
 */
export function networkPayer(
  ctx: { readonly limits: { readonly rateLimit: Pick<RequestLimits['rateLimit'], 'clientAddress'> } },
  request: Request,
  perAddress: number,
): Promise<Payer> {
  return addressPayer(ctx.limits.rateLimit.clientAddress(request), perAddress);
}

/**
 * The payer of a client `address` (`undefined`: unknown, one shared network): {@link networkPayer}
 * for callers that have the address rather than the request. `perAggregate` defaults to
 * {@link AGGREGATE_SHARES} × `perAddress`.
 */
export async function addressPayer(
  address: string | undefined,
  perAddress: number,
  perAggregate = perAddress * AGGREGATE_SHARES,
): Promise<Payer> {
  const [network, aggregate] =
    address === undefined
      ? [UNKNOWN, UNKNOWN]
      : await Promise.all([
          sha256Base64url(clientNetwork(address)),
          sha256Base64url(networkAggregate(address)),
        ]);
  const partition = `net:${aggregate}`;
  return {
    shares: [
      { partition: `addr:${network}`, quota: perAddress },
      { partition, quota: perAggregate },
    ],
    write: { partition },
  };
}

/** Where windows are counted: the instance's rate-limit store, or any other (a bounded table). */
export interface WindowCounters {
  readonly storage: Pick<Context['storage'], 'rateLimits'>;
  readonly clock: Pick<Context['clock'], 'now'>;
}

/** A limit of new entries per client network. */
export interface NetworkLimit {
  /** What is counted, the budget's name (e.g. `reg`, `interaction`). */
  readonly name: string;
  /** New entries per address per window; its aggregate gets {@link AGGREGATE_SHARES} times as many. */
  readonly max: number;
  readonly windowSeconds: number;
  /** The `error_description` of the 429. */
  readonly description: string;
}

/** 429 `too_many_requests` with `Retry-After` until `retryAt`. */
export function tooManyRequests(description: string, retryAt: EpochMs, now: EpochMs): ProtocolError {
  return oauthError('too_many_requests', description, {
    retryAfter: Math.max(1, secondsUntil(retryAt, now)),
  });
}

/** Throws {@link tooManyRequests} when a charge was refused. */
export function refuseOver(charge: Charge, description: string, now: EpochMs): void {
  if (!charge.charged) throw tooManyRequests(description, charge.retryAt, now);
}

/** What may hear that a share was used up: the instance's events (absent for process-local tables). */
interface QuotaEvents {
  readonly emit?: (event: GatehouseEvent) => void;
}

/**
 * Charges one new entry to the client network of `request` ({@link networkPayer}) in `limit`'s
 * fair-share budget; over the address's or the aggregate's share it throws 429
 * `too_many_requests` with `Retry-After`, having written nothing. Answers the payer, to write the
 * entry with (`payer.write`). The fetches of client ID metadata documents and key sets count on a
 * bounded table of their process rather than the instance's store (`resolve-options.ts`).
 */
export async function chargeClientNetwork(
  ctx: WindowCounters &
    QuotaEvents & {
      readonly limits: { readonly rateLimit: Pick<RequestLimits['rateLimit'], 'clientAddress'> };
    },
  request: Request,
  limit: NetworkLimit,
): Promise<Payer> {
  const payer = await networkPayer(ctx, request, limit.max);
  const now = ctx.clock.now();
  const budget = fairShareBudget(ctx.storage.rateLimits, limit.name, secondsToMs(limit.windowSeconds));
  const charge = await budget.charge(payer, now);
  refuseOver(charge, limit.description, now);
  if (charge.charged && charge.filled)
    ctx.emit?.({ type: 'quota.reached', quota: limit.name, payer: 'network' });
  return payer;
}

/** The partition of what one client makes the server store, when the client pays for it. */
export async function clientPartition(clientId: string): Promise<string> {
  return `client:${await sha256Base64url(clientId)}`;
}

/**
 * The partition what a client's request makes the server store is charged to: a host's client
 * that proved its identity pays itself; a client that proved nothing (anyone can name a public
 * client) or that anyone could create (self-registered, so many of one network would each get a
 * share) is paid for by its caller's network aggregate.
 */
export async function clientWritePartition(
  ctx: { readonly limits: { readonly rateLimit: Pick<RequestLimits['rateLimit'], 'clientAddress'> } },
  request: Request,
  client: ClientRecord,
  provedIdentity: boolean,
): Promise<string> {
  if (provedIdentity && !isSelfRegistered(client)) return clientPartition(client.id);
  return (await networkPayer(ctx, request, 1)).write.partition!;
}
