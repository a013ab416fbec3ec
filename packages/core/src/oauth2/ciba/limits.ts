import type { Context } from '../../context.js';
import { sha256Base64url } from '../../crypto/sha256.js';
import { oauthError } from '../../errors.js';
import { tooManyRequests } from '../../http/address-rate-limit.js';
import { fairShareBudget, singlePayer } from '../../storage/kv/fair-share.js';
import type { EpochMs } from '../../time.js';
import { secondsToMs } from '../../time.js';
import { updateUserIndex } from './records.js';
import type { CibaSettings } from './settings.js';

/*
 * Bounds on what backchannel authentication requests make the server store and send (CIBA Core
 * 1.0 §15: a client must not flood a user's device; RFC 9700 §4.16 resource exhaustion), each
 * partitioned by who pays, never one global cap a single caller could fill:
 *
 * - per client: `maxRequestsPerClient` requests per `maxRequestLifetimeSeconds` window (a fixed
 *   window: at most twice as many live at a window's edge), charged to the partition that pays for
 *   the client's writes (`clientWritePartition`: a host's client itself; a self-registered one, the
 *   network that registers it, so registering many clients from one network buys no more);
 * - per user, all clients together: `maxPendingPerUser` pending at once (the user's index, moved by
 *   compare-and-set, so concurrent requests cannot pass it together) and `maxNotificationsPerUser`
 *   notifications of the device per window. A decision or the expiry frees a pending slot.
 *
 * Over a bound: 429 `too_many_requests` with `Retry-After`, nothing stored. Reaching one emits
 * `quota.reached` once per window. security.md ("Backchannel authentication") lists them.
 */

/** Charges one request to its client's partition and one notification to its user. */
export async function chargeRequest(
  ctx: Pick<Context, 'emit' | 'storage'>,
  settings: CibaSettings,
  clientPartition: string,
  userId: string,
  now: EpochMs,
): Promise<void> {
  const windowMs = secondsToMs(settings.maxRequestLifetimeSeconds);
  const requests = fairShareBudget(ctx.storage.rateLimits, 'ciba-request', windowMs);
  const byClient = await requests.charge(singlePayer(clientPartition, settings.maxRequestsPerClient), now);
  if (!byClient.charged)
    throw tooManyRequests(
      'Too many backchannel authentication requests from this client.',
      byClient.retryAt,
      now,
    );
  if (byClient.filled) ctx.emit({ type: 'quota.reached', quota: 'ciba-request', payer: 'client' });
  const notifications = fairShareBudget(ctx.storage.rateLimits, 'ciba-notify', windowMs);
  const user = singlePayer(`user:${await sha256Base64url(userId)}`, settings.maxNotificationsPerUser);
  const byUser = await notifications.charge(user, now);
  if (!byUser.charged)
    throw tooManyRequests('Too many backchannel authentication requests for this user.', byUser.retryAt, now);
  if (byUser.filled) ctx.emit({ type: 'quota.reached', quota: 'ciba-notify', payer: 'user' });
}

/**
 * Adds `requestId` to the user's pending requests, refused (429, nothing written) when the user
 * has `maxPendingPerUser` already; `Retry-After` says when the oldest expires.
 */
export async function reserveUserSlot(
  ctx: Pick<Context, 'emit' | 'storage'>,
  settings: CibaSettings,
  userId: string,
  requestId: string,
  expiresAt: EpochMs,
  now: EpochMs,
): Promise<void> {
  let full: EpochMs | undefined;
  const reserved = await updateUserIndex(ctx, userId, now, (live) => {
    if (live.length >= settings.maxPendingPerUser) {
      full = Math.min(...live.map((entry) => entry.expiresAt));
      return null;
    }
    return { next: [...live, { id: requestId, expiresAt }], result: true };
  });
  if (reserved === null) {
    ctx.emit({ type: 'quota.reached', quota: 'ciba-pending', payer: 'user' });
    throw tooManyRequests(
      'Too many backchannel authentication requests are pending for this user.',
      full ?? now,
      now,
    );
  }
  if (reserved === undefined)
    throw oauthError('temporarily_unavailable', 'The request could not be stored; try again.', {
      retryAfter: 1,
    });
}
