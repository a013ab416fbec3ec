import type { Context } from '../../context.js';
import { hashSecret } from '../../tokens/secrets.js';
import type { CheckedHostUser } from './host-user.js';
import type { InteractionStep } from './types.js';

/**
 * An interaction as stored in `ctx.storage.kv` under `interaction:{hashSecret(reference)}` (the
 * reference itself, a bearer of the pending request, never reaches the store), as JSON, until it
 * expires. Single use: `finish` swaps the pending record for the finished one (compare-and-set, so
 * of two concurrent finishes one wins), and the resume endpoint takes it (atomic get and delete).
 */
export interface InteractionRecord {
  readonly v: 1;
  readonly step: InteractionStep;
  /**
   * `device`: the sign-in of the device verification page (`params` is `{ user_code }`), or of the
   * approval page of backchannel authentication (`params` is `{ next: 'approvals' }`);
   * `account`: the sign-in of the connected apps page (`params` is empty: the resume goes there);
   * absent: authorize.
   */
  readonly flow?: 'device' | 'account';
  /**
   * A device sign-in started before its typed code was looked up (anonymous lookups were over
   * their limits, `oauth2/device/guess-limit.ts`): the code is looked up after the sign-in, charged
   * to the user; until then the interaction names no client (`clientId` is empty).
   */
  readonly unchecked?: true;
  /** The authorization request's own parameters, validated again on resume (`id_token_hint` left out). */
  readonly params: Readonly<Record<string, string>>;
  readonly clientId: string;
  /** The user it is bound to: the signed-in user of a consent step, the `id_token_hint`'s of a login step. */
  readonly subject?: string;
  /** `hashSecret` of the browser-binding cookie of the browser that started it. */
  readonly binding: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  /** Set by `finish`. */
  readonly result?: StoredResult;
}

/** A finished interaction's result, checked. */
export interface StoredResult {
  readonly login?: CheckedHostUser & { readonly authTime: number };
  readonly consent?:
    | { readonly scope: string; readonly resources?: readonly string[]; readonly remember: boolean }
    | { readonly denied: true; readonly description?: string };
  /** The sign-in was made on the built-in login page (else by the host). */
  readonly via?: 'login-page';
}

/**
 * Largest stored record, in bytes of JSON. A pending one is the authorization request's parameters
 * (each bounded on its own: nonce 512, login_hint 256, …) and a few fields; a request whose
 * parameters do not fit is refused before anything is stored. The result adds at most ~3 KB
 * (`sub`, `acr`, `amr`, the granted subset of the scope and resources).
 */
export const MAX_PENDING_BYTES = 4096;
export const MAX_RECORD_BYTES = 8192;

const encoder = new TextEncoder();

/** The length of `text` in bytes of UTF-8 (what a store holds), not in UTF-16 code units. */
export function utf8Length(text: string): number {
  return encoder.encode(text).byteLength;
}

/** The store key of a reference. */
export async function interactionKey(reference: string): Promise<string> {
  return `interaction:${await hashSecret(reference)}`;
}

/** A reference's shape: 43 base64url characters (256 random bits), as `randomSecret` makes them. */
export const REFERENCE_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** A stored record, read back; `null` for anything malformed (it is then treated as absent). */
export function decodeRecord(value: string | null): InteractionRecord | null {
  if (value === null) return null;
  try {
    const record = JSON.parse(value) as InteractionRecord;
    if (record?.v !== 1 || (record.step !== 'login' && record.step !== 'consent')) return null;
    if (typeof record.params !== 'object' || typeof record.binding !== 'string') return null;
    if (
      record.flow !== undefined &&
      ((record.flow !== 'device' && record.flow !== 'account') || record.step !== 'login')
    )
      return null;
    if (record.unchecked !== undefined && (record.unchecked !== true || record.flow !== 'device'))
      return null;
    return record;
  } catch {
    return null;
  }
}

/** The live record of a reference, with its stored text (for the compare-and-set), or `null`. */
export async function findInteraction(
  ctx: Pick<Context, 'clock' | 'storage'>,
  reference: string,
): Promise<{ record: InteractionRecord; stored: string; key: string } | null> {
  if (!REFERENCE_SHAPE.test(reference)) return null;
  const key = await interactionKey(reference);
  const now = ctx.clock.now();
  const stored = await ctx.storage.kv.get(key, now);
  const record = decodeRecord(stored);
  if (record === null || stored === null || record.expiresAt <= now) return null;
  return { record, stored, key };
}
