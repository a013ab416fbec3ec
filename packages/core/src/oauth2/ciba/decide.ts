import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { EpochMs } from '../../time.js';
import { parseScope } from '../scope.js';
import type { CibaApi, CibaApproval, CibaPendingRequest } from './api.js';
import { sendPing } from './notify.js';
import {
  type CibaRecord,
  isRequestId,
  parseUserIndex,
  readCibaRecord,
  recordKeptUntil,
  releaseUserSlot,
  requestKey,
  userIndexKey,
} from './records.js';
import type { CibaSettings } from './settings.js';

/** What deciding needs of the instance. */
export type DecideContext = Pick<Context, 'clock' | 'emit' | 'logger' | 'storage' | 'clients'>;

/** The user's pending, unexpired requests (their index, each record read and checked). */
export async function pendingRequests(ctx: DecideContext, userId: string): Promise<CibaPendingRequest[]> {
  const now = ctx.clock.now();
  const index = parseUserIndex(await ctx.storage.kv.get(await userIndexKey(userId), now)).filter(
    (entry) => entry.expiresAt > now,
  );
  const found = await Promise.all(index.map((entry) => readCibaRecord(ctx, entry.id, now)));
  const live = found.flatMap((entry, i) =>
    entry !== null && isLivePending(entry.record, userId, now)
      ? [{ id: index[i]!.id, record: entry.record }]
      : [],
  );
  const names = new Map<string, string>();
  for (const { record } of live)
    if (!names.has(record.clientId))
      names.set(record.clientId, (await ctx.clients.findClient(record.clientId))?.name ?? record.clientId);
  return live.map(({ id, record }) => ({
    requestId: id,
    client: { id: record.clientId, name: names.get(record.clientId) ?? record.clientId },
    ...(record.bindingMessage === undefined ? {} : { bindingMessage: record.bindingMessage }),
    scopes: parseScope(record.scope),
    resources: record.resources ?? [],
    ...(record.authorizationDetails === undefined
      ? {}
      : { authorizationDetails: record.authorizationDetails }),
    createdAt: record.createdAt,
    expiresAt: record.expiresAt,
  }));
}

function isLivePending(record: CibaRecord, userId: string, now: EpochMs): boolean {
  return record.status === 'pending' && record.userId === userId && now < record.expiresAt;
}

/**
 * Decides one of the user's pending requests: the pending record becomes approved (with the
 * authentication behind it) or denied by compare-and-set, so of two decisions racing exactly one
 * counts. `false` when it is not a live pending request of this user. The user's slot is freed;
 * a ping client is told in the background (`sendPing`, never awaited: the user is not kept waiting).
 */
export async function decide(
  ctx: DecideContext,
  settings: CibaSettings,
  userId: string,
  requestId: string,
  decision: 'allow' | 'deny',
  approval: CibaApproval & { readonly sessionId?: string } = {},
): Promise<boolean> {
  if (!isRequestId(requestId)) return false;
  const now = ctx.clock.now();
  const found = await readCibaRecord(ctx, requestId, now);
  if (found === null || !isLivePending(found.record, userId, now)) return false;
  const { record, text } = found;
  const decided: CibaRecord =
    decision === 'allow'
      ? {
          ...record,
          status: 'approved',
          decidedAt: now,
          authTime: approval.authTime ?? now,
          ...(approval.sessionId === undefined ? {} : { sessionId: approval.sessionId }),
          ...(approval.acr === undefined ? {} : { acr: approval.acr }),
          ...(approval.amr === undefined ? {} : { amr: approval.amr }),
        }
      : { ...record, status: 'denied', decidedAt: now };
  const won = await ctx.storage.kv.swap(
    requestKey(requestId),
    text,
    JSON.stringify(decided),
    recordKeptUntil(record),
    now,
  );
  if (!won) return false;
  await releaseUserSlot(ctx, userId, requestId, now);
  ctx.emit({
    type: decision === 'allow' ? 'ciba.approved' : 'ciba.denied',
    clientId: record.clientId,
    userId,
  });
  if (record.mode === 'ping') void sendPing(ctx, settings, requestId, record.clientId);
  return true;
}

/** `gatehouse.ciba` on a ready context. */
export function cibaApi(ctx: DecideContext, settings: CibaSettings): CibaApi {
  const checked = (name: string, value: unknown) => {
    if (typeof value !== 'string' || value === '')
      throw new UsageError(`ciba.${name}: expected a non-empty string.`, 'ERR_INVALID_ARGUMENT', name);
  };
  return {
    async pending(userId) {
      checked('userId', userId);
      return pendingRequests(ctx, userId);
    },
    async approve(userId, requestId, approval) {
      checked('userId', userId);
      checked('requestId', requestId);
      return decide(ctx, settings, userId, requestId, 'allow', checkedApproval(approval));
    },
    async deny(userId, requestId) {
      checked('userId', userId);
      checked('requestId', requestId);
      return decide(ctx, settings, userId, requestId, 'deny');
    },
  };
}

/** The host's approval, type-checked (it ends up in ID tokens). */
function checkedApproval(approval: CibaApproval | undefined): CibaApproval {
  if (approval === undefined) return {};
  const bad = (field: string) => {
    throw new UsageError(`ciba.approve: ${field} is malformed.`, 'ERR_INVALID_ARGUMENT', field);
  };
  if (typeof approval !== 'object' || approval === null) bad('approval');
  if (approval.authTime !== undefined && !Number.isSafeInteger(approval.authTime)) bad('authTime');
  if (approval.acr !== undefined && (typeof approval.acr !== 'string' || approval.acr.length > 256))
    bad('acr');
  if (
    approval.amr !== undefined &&
    (!Array.isArray(approval.amr) ||
      approval.amr.length > 10 ||
      !approval.amr.every((m) => typeof m === 'string' && m.length <= 64))
  )
    bad('amr');
  return approval;
}
