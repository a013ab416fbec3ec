import type { Context } from '../../context.js';
import type { AuthenticationAttributes } from '../../storage/types.js';
import type { EpochMs } from '../../time.js';
import { secondsToMs } from '../../time.js';

/*
 * The state of device authorizations (RFC 8628), in the instance's key-value store
 * (`ctx.storage.kv`), as JSON:
 *
 * - `device:code:{sha256(device_code)}` → {@link DeviceRecord}: the request and, once the user
 *   decided, the decision. Only the device code's hash is a key (like every Gatehouse secret), so a
 *   copy of the store redeems nothing. Kept {@link EXPIRED_GRACE_MS} past the code's expiry so that
 *   a late poll hears `expired_token` rather than `invalid_grant` (§3.5).
 * - `device:user:{USERCODE}` → the device code's hash: the index the verification page looks the
 *   typed code up in. Gone at the code's expiry, and deleted once the user decided.
 * - `device:poll:{sha256(device_code)}` → {@link PollState}: when the device last polled and the
 *   interval it must keep (§3.5 `slow_down`), apart from the record so that polling never races
 *   with the user's decision.
 *
 * Transitions are single atomic store steps: the decision is a compare-and-set (`swap`) from the
 * pending record, so of an "Allow" and a "Deny" racing, exactly one wins; the redemption is a
 * `take`, so a code yields tokens once.
 */

/** Where a device authorization stands. */
export type DeviceStatus = 'pending' | 'approved' | 'denied';

/** One device authorization request and its decision. */
export interface DeviceRecord {
  readonly clientId: string;
  /** The granted scope (validated at the request), space-separated. */
  readonly scope: string;
  /** RFC 8707 resources the grant is for; absent: the default audience. */
  readonly resources?: readonly string[];
  /** The normalised user code. */
  readonly userCode: string;
  readonly createdAt: EpochMs;
  /** When the device code and user code stop working (`expires_in`). */
  readonly expiresAt: EpochMs;
  readonly status: DeviceStatus;
  /** Once approved: who approved, when, and the authentication behind it (carried into the tokens). */
  readonly userId?: string;
  readonly approvedAt?: EpochMs;
  readonly authTime?: EpochMs;
  readonly sessionId?: string;
  readonly acr?: AuthenticationAttributes['acr'];
  readonly amr?: AuthenticationAttributes['amr'];
}

/** The polling pace of one device code. */
export interface PollState {
  /** When the device last polled (or the authorization was issued). */
  readonly at: EpochMs;
  /** The interval it must keep, in seconds. */
  readonly interval: number;
}

/** A poll too early never leaves the grace: the record outlives the code by this much. */
export const EXPIRED_GRACE_MS = secondsToMs(600);

/**
 * Largest stored record, in characters of JSON. A record holds a client id, a scope, a user code
 * and at most 10 resource URIs of 2,048 characters (RFC 8707 limits of `resource-indicators.ts`):
 * a request that would make a larger one is refused before anything is stored.
 */
export const MAX_DEVICE_RECORD_CHARS = 24_576;

type Kv = Pick<Context, 'storage'>;

export const deviceKey = (deviceCodeHash: string) => `device:code:${deviceCodeHash}`;
export const userCodeKey = (userCode: string) => `device:user:${userCode}`;
export const pollKey = (deviceCodeHash: string) => `device:poll:${deviceCodeHash}`;

/** How long the record stays in the store: past its expiry, for `expired_token`. */
export const recordKeptUntil = (record: Pick<DeviceRecord, 'expiresAt'>): EpochMs =>
  record.expiresAt + EXPIRED_GRACE_MS;

/** A stored record, or `null` when the value is not one (never trusted blindly: it is JSON text). */
export function parseDeviceRecord(value: string | null): DeviceRecord | null {
  if (value === null) return null;
  try {
    const record = JSON.parse(value) as DeviceRecord;
    const ok =
      typeof record === 'object' &&
      record !== null &&
      typeof record.clientId === 'string' &&
      typeof record.scope === 'string' &&
      typeof record.userCode === 'string' &&
      typeof record.expiresAt === 'number' &&
      (record.status === 'pending' || record.status === 'approved' || record.status === 'denied');
    return ok ? record : null;
  } catch {
    return null;
  }
}

/** The record of a device code hash, as stored (its JSON text, for a later `swap`) and parsed. */
export async function readDeviceRecord(
  ctx: Kv,
  deviceCodeHash: string,
  now: EpochMs,
): Promise<{ readonly text: string; readonly record: DeviceRecord } | null> {
  const text = await ctx.storage.kv.get(deviceKey(deviceCodeHash), now);
  const record = parseDeviceRecord(text);
  return text === null || record === null ? null : { text, record };
}

/** The device code hash a normalised user code stands for, while the code is live and undecided. */
export function findUserCode(ctx: Kv, userCode: string, now: EpochMs): Promise<string | null> {
  return ctx.storage.kv.get(userCodeKey(userCode), now);
}

/** The poll state of a device code, or `null`. */
export function parsePollState(value: string | null): PollState | null {
  if (value === null) return null;
  try {
    const state = JSON.parse(value) as PollState;
    return typeof state?.at === 'number' && typeof state.interval === 'number' ? state : null;
  } catch {
    return null;
  }
}
