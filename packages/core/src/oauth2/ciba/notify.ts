import type { Context } from '../../context.js';
import { guardedPost, OutboundFetchError } from '../../http/guarded-fetch.js';
import type { CibaNotification } from '../../options.js';
import { type PingState, pingKey } from './records.js';
import type { CibaSettings } from './settings.js';

/**
 * Tells the user's authentication device of a new request through the host's `notify` hook,
 * awaited at most `notifyTimeoutMs`. A failure (or a hook still running at the deadline) is logged
 * and audited (`ciba.notify_failed`); the request stays pending, and the user can still decide it
 * on the approval page.
 */
export async function notifyDevice(
  ctx: Pick<Context, 'emit' | 'logger'>,
  settings: CibaSettings,
  notification: CibaNotification,
): Promise<void> {
  if (settings.notify === undefined) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<'timeout'>((done) => {
    timer = setTimeout(() => done('timeout'), settings.notifyTimeoutMs);
  });
  try {
    const outcome = await Promise.race([Promise.resolve(settings.notify(notification)), deadline]);
    if (outcome === 'timeout') throw new Error(`it did not finish within ${settings.notifyTimeoutMs} ms`);
  } catch (error) {
    ctx.logger.warn('gatehouse: ciba.notify failed; the request stays pending', error);
    ctx.emit({ type: 'ciba.notify_failed', clientId: notification.client.id, userId: notification.user.id });
  } finally {
    clearTimeout(timer);
  }
}

/** Backoff before the n-th retry (1 s, 2 s, 4 s, …). */
const retryDelayMs = (retry: number) => 1000 * 2 ** retry;

/** Whether a failed attempt is worth another (the endpoint was down or slow, not refused). */
function retryable(error: unknown): boolean {
  if (!(error instanceof OutboundFetchError)) return false;
  if (error.code === 'ERR_FETCH_FAILED' || error.code === 'ERR_FETCH_TIMEOUT') return true;
  return error.code === 'ERR_FETCH_STATUS' && (error.status === 429 || (error.status ?? 0) >= 500);
}

/**
 * The ping callback of a decided request (CIBA §10.2): `POST` of `{"auth_req_id": …}` to the
 * client's notification endpoint with its `client_notification_token` as bearer (RFC 6750), through
 * the guarded fetch (https or a loopback host when allowed, no private addresses, no redirects, a
 * deadline per attempt), at most `ping.attempts` times with backoff. The ping state is taken first
 * (single use: of two decisions racing, only the winner's callback goes). Never rejects: the outcome
 * is audited (`ciba.ping_sent`, `ciba.ping_failed`). The client can always poll meanwhile.
 */
export async function sendPing(
  ctx: Pick<Context, 'clock' | 'emit' | 'logger' | 'storage'>,
  settings: CibaSettings,
  requestId: string,
  clientId: string,
): Promise<void> {
  try {
    const text = await ctx.storage.kv.take(pingKey(requestId), ctx.clock.now());
    if (text === null) return;
    const ping = JSON.parse(text) as PingState;
    const policy = { allowLoopback: settings.ping.allowLoopback };
    for (let attempt = 1; ; attempt++) {
      try {
        await guardedPost(new URL(ping.endpoint), {
          policy,
          transport: settings.ping.fetch,
          timeoutMs: settings.ping.timeoutMs,
          contentType: 'application/json',
          body: JSON.stringify({ auth_req_id: ping.authReqId }),
          headers: { Authorization: `Bearer ${ping.token}` },
        });
        ctx.emit({ type: 'ciba.ping_sent', clientId, attempts: attempt });
        return;
      } catch (error) {
        if (attempt >= settings.ping.attempts || !retryable(error)) {
          ctx.logger.warn(`gatehouse: the CIBA ping callback of client ${clientId} failed`, error);
          ctx.emit({ type: 'ciba.ping_failed', clientId, attempts: attempt });
          return;
        }
        await new Promise((done) => setTimeout(done, retryDelayMs(attempt - 1)));
      }
    }
  } catch (error) {
    ctx.logger.warn(`gatehouse: the CIBA ping callback of client ${clientId} failed`, error);
    ctx.emit({ type: 'ciba.ping_failed', clientId, attempts: 0 });
  }
}
