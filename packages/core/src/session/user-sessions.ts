import type { Context } from '../context.js';
import type { InstanceSettings } from '../feature.js';
import { checkUserId } from '../revocation/user-grants.js';
import { sessionRevoked } from '../revocation/user-revocation.js';
import type { SessionRecord } from '../storage/types.js';
import { addSeconds, type EpochMs } from '../time.js';
import { hashSecret } from '../tokens/secrets.js';

/** One of a user's live browser sessions, as `gatehouse.listSessions` shows it. */
export interface UserSession {
  /** The session's public id (the OIDC `sid`): pass it to `gatehouse.revokeSession`. */
  readonly sessionId: string;
  /** When the user signed in. */
  readonly createdAt: EpochMs;
  /** The last request seen with it (updated at most once a minute). */
  readonly lastSeenAt: EpochMs;
  /** When it ends without further activity: the idle timeout from `lastSeenAt`, at most the absolute end. */
  readonly expiresAt: EpochMs;
}

/*
 * The per-user index of sessions. The session store finds a session by its cookie's hash only, so
 * the sessions of one user are listed from an index in the key-value store (`ctx.storage.kv`, on
 * every engine, no migration): under `user-sessions:<SHA-256 of the user id>`, a JSON array of the
 * user's most recent sessions ({@link MAX_INDEXED_SESSIONS}), each its public id, its cookie hash
 * (to find and delete it) and its absolute end. The session store stays the truth: an entry whose
 * session is gone, idle, ended or revoked is not listed and is dropped at the next write. Sessions
 * created before the index existed are not listed (they are still ended by `revokeUser`).
 */

/** Sessions indexed per user; at a login past it, ended entries go first, then the oldest. */
export const MAX_INDEXED_SESSIONS = 50;
/** Compare-and-set attempts of one index update under concurrent logins of the same user. */
const UPDATE_ATTEMPTS = 8;

interface Entry {
  /** Public id (`sid`). */
  readonly s: string;
  /** Cookie hash (`idHash`). */
  readonly h: string;
  /** Sign-in time. */
  readonly c: EpochMs;
  /** Absolute end. */
  readonly e: EpochMs;
}

type SessionContext = Pick<Context, 'storage' | 'clock' | 'logger' | 'session'>;

async function indexKey(userId: string): Promise<string> {
  return `user-sessions:${await hashSecret(userId)}`;
}

function parse(value: string | null): Entry[] {
  if (value === null) return [];
  try {
    const entries: unknown = JSON.parse(value);
    return Array.isArray(entries) ? (entries as Entry[]) : [];
  } catch {
    return [];
  }
}

/**
 * Applies `change` to the user's index in one compare-and-set (`add` when absent, else `swap`),
 * retried under contention. Returns whether it was written; gives up with a warning (the session
 * itself is unaffected, only its listing) after {@link UPDATE_ATTEMPTS}.
 */
async function updateIndex(
  ctx: SessionContext,
  key: string,
  change: (entries: Entry[], now: EpochMs) => Entry[],
): Promise<boolean> {
  const { kv } = ctx.storage;
  for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
    const now = ctx.clock.now();
    const current = await kv.get(key, now);
    const next = change(parse(current), now);
    // Kept as long as its longest-lived session; an empty index lives one more second.
    const expiresAt = Math.max(now + 1000, ...next.map((entry) => entry.e));
    const value = JSON.stringify(next);
    const written =
      current === null
        ? await kv.add(key, value, expiresAt, now)
        : await kv.swap(key, current, value, expiresAt, now);
    if (written) return true;
  }
  ctx.logger.warn('gatehouse: the session index of a user could not be updated (too many concurrent logins)');
  return false;
}

/** Whether `entry`'s session is still live (exists, not idle, not ended by `revokeUser`). */
async function liveSession(
  ctx: Pick<Context, 'storage' | 'session'>,
  entry: Entry,
  now: EpochMs,
): Promise<SessionRecord | null> {
  const record = await ctx.storage.sessions.findSession(entry.h, now);
  if (!record || addSeconds(record.lastSeenAt, ctx.session.idleTimeout) <= now) return null;
  return (await sessionRevoked(ctx, record, now)) ? null : record;
}

/** Adds a new session to its user's index (called once the session is stored). */
export async function indexSession(
  ctx: Pick<Context, 'clock' | 'logger' | 'storage' | 'session'>,
  record: SessionRecord,
): Promise<void> {
  if (record.sid === undefined) return;
  const entry: Entry = { s: record.sid, h: record.idHash, c: record.createdAt, e: record.expiresAt };
  const key = await indexKey(record.userId);
  const now = ctx.clock.now();
  const indexed = parse(await ctx.storage.kv.get(key, now));
  let live: Set<string> | undefined;
  if (indexed.length >= MAX_INDEXED_SESSIONS) {
    // Full: find which entries still stand for a session (rare: only for a user at the bound).
    live = new Set();
    for (const other of indexed) if (await liveSession(ctx, other, now)) live.add(other.s);
  }
  await updateIndex(ctx, key, (entries, now) => {
    const kept = entries.filter((other) => other.e > now && (live === undefined || live.has(other.s)));
    // Past the bound, the oldest sign-ins leave the index (their sessions still work until they end).
    kept.sort((a, b) => b.c - a.c);
    return [entry, ...kept.slice(0, MAX_INDEXED_SESSIONS - 1)];
  });
}

/** The user's live sessions, most recently active first; ended entries are dropped from the index. */
export async function listSessions(
  ctx: Pick<Context, 'clock' | 'logger' | 'storage' | 'session'>,
  userId: string,
): Promise<UserSession[]> {
  checkUserId('listSessions', userId);
  const key = await indexKey(userId);
  const now = ctx.clock.now();
  const entries = parse(await ctx.storage.kv.get(key, now));
  const sessions: UserSession[] = [];
  const ended = new Set<string>();
  for (const entry of entries) {
    const record = await liveSession(ctx, entry, now);
    // The index is keyed by a hash of the user id: a record of another user is never shown.
    if (!record || record.userId !== userId) {
      ended.add(entry.s);
      continue;
    }
    sessions.push({
      sessionId: entry.s,
      createdAt: record.createdAt,
      lastSeenAt: record.lastSeenAt,
      expiresAt: Math.min(record.expiresAt, addSeconds(record.lastSeenAt, ctx.session.idleTimeout)),
    });
  }
  if (ended.size > 0) await updateIndex(ctx, key, (current) => current.filter((e) => !ended.has(e.s)));
  return sessions.sort((a, b) => b.lastSeenAt - a.lastSeenAt);
}

/**
 * Ends one session of `userId`, by the `sessionId` {@link listSessions} gave: `true` when a live
 * session of that user was ended (emits `session.revoked` and reports it to the instance's session
 * lifecycle, so back-channel logout tells its relying parties), `false` (nothing changed) for an
 * unknown id or another user's. `ctx` may be the instance's resolved options or a feature's
 * `FeatureShared` (what an admin API has).
 */
export async function revokeSession(
  ctx: Pick<Context, 'clock' | 'emit' | 'logger' | 'storage' | 'session'> &
    Pick<InstanceSettings, 'sessions'>,
  userId: string,
  sessionId: string,
): Promise<boolean> {
  checkUserId('revokeSession', userId);
  if (typeof sessionId !== 'string' || sessionId === '') {
    throw new TypeError('revokeSession: sessionId must be a non-empty string (from listSessions).');
  }
  const key = await indexKey(userId);
  const now = ctx.clock.now();
  const entry = parse(await ctx.storage.kv.get(key, now)).find((e) => e.s === sessionId);
  if (!entry) return false;
  const record = await ctx.storage.sessions.findSession(entry.h, now);
  const live = record !== null && record.userId === userId && (await liveSession(ctx, entry, now)) !== null;
  if (record !== null && record.userId === userId) await ctx.storage.sessions.deleteSession(entry.h);
  await updateIndex(ctx, key, (current) => current.filter((e) => e.s !== sessionId));
  if (live) {
    ctx.emit({ type: 'session.revoked', userId, sessionId });
    ctx.sessions.ended([{ userId, sid: sessionId }]);
  }
  return live;
}
