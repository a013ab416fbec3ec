import type { Context } from '../../context.js';
import { sha256Base64url } from '../../crypto/sha256.js';
import type { AuthenticationAttributes, KeyValueWriteOptions } from '../../storage/types.js';
import type { EpochMs } from '../../time.js';
import { secondsToMs } from '../../time.js';
import type { AuthorizationDetail } from '../../tokens/authorization-details.js';

/*
 * The state of backchannel authentications (CIBA Core 1.0), in the instance's key-value store
 * (`ctx.storage.kv`, the same contract the device flow's records use, on every engine), as JSON:
 *
 * - `ciba:req:{requestId}` → {@link CibaRecord}: the request and, once decided, the decision. The
 *   `auth_req_id` the client holds is the request id (128 random bits) followed by a secret (256
 *   random bits); the record keeps only the secret's hash, so a copy of the store redeems nothing
 *   (and redeeming needs the client's authentication besides). Kept {@link EXPIRED_GRACE_MS} past
 *   its expiry, so that a late poll hears `expired_token` rather than `invalid_grant`.
 * - `ciba:poll:{requestId}` → {@link PollState}: when the client last polled and its interval
 *   (CIBA §7.3, `slow_down`), apart from the record so that polling never races with the decision.
 * - `ciba:user:{sha256(userId)}` → {@link UserIndex}: the user's pending requests (at most
 *   `maxPendingPerUser`), what the approval page lists. Moved by compare-and-set.
 * - `ciba:ping:{requestId}` → {@link PingState}: in ping mode, what the callback needs and no
 *   record keeps: the `auth_req_id` the callback carries (CIBA §10.2) and the client's
 *   `client_notification_token`. Taken (single use) when the callback is sent.
 *
 * Transitions are single atomic store steps: the decision is a compare-and-set (`swap`) from the
 * pending record, so of an "Allow" and a "Deny" racing exactly one wins; the redemption is a
 * `take`, so an `auth_req_id` yields tokens once.
 */

/** Where a request stands. */
export type CibaStatus = 'pending' | 'approved' | 'denied';

/** One backchannel authentication request and its decision. */
export interface CibaRecord {
  readonly v: 1;
  /** `hashSecret` of the secret half of the `auth_req_id`. */
  readonly secretHash: string;
  readonly clientId: string;
  readonly userId: string;
  /** The scope asked for (validated), space-separated; `openid` always among them. */
  readonly scope: string;
  /** RFC 8707 resources the grant is for; absent: the default audience. */
  readonly resources?: readonly string[];
  readonly bindingMessage?: string;
  /** RFC 9396 `authorization_details`, as validated at the request (the feature's types). */
  readonly authorizationDetails?: readonly AuthorizationDetail[];
  readonly mode: 'poll' | 'ping';
  readonly createdAt: EpochMs;
  readonly expiresAt: EpochMs;
  readonly status: CibaStatus;
  /** Once decided: when; once approved, the authentication behind it (carried into the tokens). */
  readonly decidedAt?: EpochMs;
  readonly authTime?: EpochMs;
  readonly sessionId?: string;
  readonly acr?: AuthenticationAttributes['acr'];
  readonly amr?: AuthenticationAttributes['amr'];
}

/** The polling pace of one request. */
export interface PollState {
  readonly at: EpochMs;
  readonly interval: number;
}

/** One entry of a user's index. */
export interface UserIndexEntry {
  readonly id: string;
  readonly expiresAt: EpochMs;
}

/** A user's pending requests, oldest first. */
export type UserIndex = readonly UserIndexEntry[];

/** The ping callback of a request (ping mode). */
export interface PingState {
  readonly authReqId: string;
  readonly token: string;
  readonly endpoint: string;
}

/** A late poll hears `expired_token` this long after the expiry. */
export const EXPIRED_GRACE_MS = secondsToMs(600);

/**
 * Largest stored record, in characters of JSON: a client id, a scope, a binding message, at most 10
 * resources of 2,048 characters and the authorization details the request was allowed (8 KB). A
 * request that would make a larger one is refused before anything is stored.
 */
export const MAX_CIBA_RECORD_CHARS = 32_768;

/** Characters of a request id (16 random bytes, base64url). */
export const REQUEST_ID_LENGTH = 22;
const REQUEST_ID_SHAPE = /^[A-Za-z0-9_-]{22}$/;
const AUTH_REQ_ID_SHAPE = /^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/;

export const requestKey = (requestId: string) => `ciba:req:${requestId}`;
export const pollKey = (requestId: string) => `ciba:poll:${requestId}`;
export const pingKey = (requestId: string) => `ciba:ping:${requestId}`;
export const userIndexKey = async (userId: string) => `ciba:user:${await sha256Base64url(userId)}`;

/** Whether `id` has the shape of a request id (anything else is looked up nowhere). */
export const isRequestId = (id: unknown): id is string => typeof id === 'string' && REQUEST_ID_SHAPE.test(id);

/** The two halves of an `auth_req_id`, or `undefined` for anything else. */
export function splitAuthReqId(authReqId: string): { requestId: string; secret: string } | undefined {
  if (!AUTH_REQ_ID_SHAPE.test(authReqId)) return undefined;
  return { requestId: authReqId.slice(0, REQUEST_ID_LENGTH), secret: authReqId.slice(REQUEST_ID_LENGTH + 1) };
}

/** How long the record stays in the store: past its expiry, for `expired_token`. */
export const recordKeptUntil = (record: Pick<CibaRecord, 'expiresAt'>): EpochMs =>
  record.expiresAt + EXPIRED_GRACE_MS;

/** A stored record, or `null` when the value is not one (it is JSON text: never trusted blindly). */
export function parseCibaRecord(value: string | null): CibaRecord | null {
  if (value === null) return null;
  try {
    const record = JSON.parse(value) as CibaRecord;
    const ok =
      typeof record === 'object' &&
      record !== null &&
      record.v === 1 &&
      typeof record.secretHash === 'string' &&
      typeof record.clientId === 'string' &&
      typeof record.userId === 'string' &&
      typeof record.scope === 'string' &&
      typeof record.expiresAt === 'number' &&
      (record.mode === 'poll' || record.mode === 'ping') &&
      (record.status === 'pending' || record.status === 'approved' || record.status === 'denied');
    return ok ? record : null;
  } catch {
    return null;
  }
}

/** The record of a request id, as stored (its JSON text, for a later `swap`) and parsed. */
export async function readCibaRecord(
  ctx: Pick<Context, 'storage'>,
  requestId: string,
  now: EpochMs,
): Promise<{ readonly text: string; readonly record: CibaRecord } | null> {
  const text = await ctx.storage.kv.get(requestKey(requestId), now);
  const record = parseCibaRecord(text);
  return text === null || record === null ? null : { text, record };
}

/** A poll state, or `null`. */
export function parsePollState(value: string | null): PollState | null {
  if (value === null) return null;
  try {
    const state = JSON.parse(value) as PollState;
    return typeof state?.at === 'number' && typeof state.interval === 'number' ? state : null;
  } catch {
    return null;
  }
}

/** A user index, or empty. */
export function parseUserIndex(value: string | null): UserIndex {
  if (value === null) return [];
  try {
    const index = JSON.parse(value) as UserIndex;
    return Array.isArray(index)
      ? index.filter((entry) => isRequestId(entry?.id) && typeof entry.expiresAt === 'number')
      : [];
  } catch {
    return [];
  }
}

/** Compare-and-set rounds of a user index before giving up (each lost round is another writer's win). */
const INDEX_ROUNDS = 8;

/**
 * Moves the user's index by `change` (given the live entries, the new ones, or `null` to refuse),
 * compare-and-set, so that concurrent requests and decisions for one user never lose an entry and
 * never pass the cap together. Answers what `change` answered last, or `undefined` when the store
 * kept changing under it (the caller refuses: nothing was written).
 */
export async function updateUserIndex<T>(
  ctx: Pick<Context, 'storage'>,
  userId: string,
  now: EpochMs,
  change: (live: UserIndex) => { readonly next: UserIndex; readonly result: T } | null,
  write?: KeyValueWriteOptions,
): Promise<{ readonly result: T } | null | undefined> {
  const key = await userIndexKey(userId);
  for (let round = 0; round < INDEX_ROUNDS; round++) {
    const text = await ctx.storage.kv.get(key, now);
    const live = parseUserIndex(text).filter((entry) => entry.expiresAt > now);
    const changed = change(live);
    if (changed === null) return null;
    const { next, result } = changed;
    const until = Math.max(now + 1000, ...next.map((entry) => entry.expiresAt));
    const value = JSON.stringify(next);
    const moved =
      text === null
        ? next.length === 0 || (await ctx.storage.kv.add(key, value, until, now, write))
        : await ctx.storage.kv.swap(key, text, value, until, now, write);
    if (moved) return { result };
  }
  return undefined;
}

/** Takes `requestId` off the user's index (decided, or its storing failed); a lost race is harmless. */
export async function releaseUserSlot(
  ctx: Pick<Context, 'storage'>,
  userId: string,
  requestId: string,
  now: EpochMs,
): Promise<void> {
  await updateUserIndex(ctx, userId, now, (live) =>
    live.some((entry) => entry.id === requestId)
      ? { next: live.filter((entry) => entry.id !== requestId), result: true }
      : null,
  );
}
