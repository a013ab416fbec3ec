import { checkInstanceId, DEFAULT_INSTANCE_ID, type RefreshTokenRecord } from '@gatehousejs/core/engine';
import { pointerValue, throwOnFailedStep } from './grant-store.js';
import { checkPrefix, expireAt, globEscape, type KeyLayout, keyLayout } from './keys.js';
import { moveConsent, moveRateLimit, moveSession, scanAll } from './migrate-kv.js';
import type { RedisClient } from './script.js';

/** Options of {@link migrateRedisKeys}. */
export interface MigrateRedisKeysOptions {
  /** The client of the server (or Cluster) holding round 1's keys. */
  readonly client: RedisClient;
  /** Round 1's `prefix`, which is also the v2 prefix. Default `gatehouse`. */
  readonly prefix?: string;
  /** The instance the keys move to. Default `default`, the instance of `redisStorage`. */
  readonly instanceId?: string;
  /** Time used to skip already expired records (epoch ms). Default `Date.now()`. */
  readonly now?: number;
}

/** How many records of each kind {@link migrateRedisKeys} moved. */
export interface MigratedKeys {
  codes: number;
  refreshTokens: number;
  revocations: number;
  sessions: number;
  consents: number;
  rateLimits: number;
}

/**
 * Moves round 1's keys (`{prefix}:code:…`, `{prefix}:rt:…`, `{prefix}:revoked-…` (users' marks included),
 * `prefix:session:…`, `prefix:consent:…`, `prefix:rate:…`) into key layout v2 for one instance
 * (sessions, consents and rate-limit windows into its key-value store, as `migrateRedisToKv` moves
 * contract v2's), keeping every field and expiry, then deletes them. Run it once at upgrade, after the round-1
 * processes stopped and before (or while) v2 processes start: a v2 instance never reads round 1's
 * keys, so until it ran, round-1 refresh tokens and sessions are unknown to v2 (their users sign in
 * again). Idempotent: a second run finds nothing left to move, and a record v2 already holds is
 * never overwritten. Scans (never KEYS) every master of a Cluster.
 */
export async function migrateRedisKeys(options: MigrateRedisKeysOptions): Promise<MigratedKeys> {
  const prefix = checkPrefix(options.prefix ?? 'gatehouse');
  const keys = keyLayout(prefix, checkInstanceId(options.instanceId ?? DEFAULT_INSTANCE_ID));
  const { client } = options;
  const now = options.now ?? Date.now();
  const moved: MigratedKeys = {
    codes: 0,
    refreshTokens: 0,
    revocations: 0,
    sessions: 0,
    consents: 0,
    rateLimits: 0,
  };
  const tagged = `{${prefix}}:`;
  const plain = `${prefix}:`;

  for (const key of await scanAll(client, `${globEscape(tagged)}*`)) {
    const rest = key.slice(tagged.length);
    if (rest.startsWith('code:')) {
      if (await moveGrantRecord(client, keys, key, 'code', rest.slice(5), now)) moved.codes++;
    } else if (rest.startsWith('rt:')) {
      if (await moveGrantRecord(client, keys, key, 'rt', rest.slice(3), now)) moved.refreshTokens++;
    } else if (rest.startsWith('revoked-grant:')) {
      if (await moveMarker(client, key, keys.revokedGrant(rest.slice(14)), now)) moved.revocations++;
    } else if (rest.startsWith('revoked-jti:')) {
      if (await moveMarker(client, key, keys.revokedToken(rest.slice(12)), now)) moved.revocations++;
    } else if (rest.startsWith('revoked-user:')) {
      if (await moveUserMark(client, key, keys.revokedSubject(rest.slice(13)), now)) moved.revocations++;
    }
  }
  for (const key of await scanAll(client, `${globEscape(plain)}*`)) {
    const rest = key.slice(plain.length);
    if (rest.startsWith('session:')) {
      if (await moveSession(client, keys, key, rest.slice(8), now)) moved.sessions++;
    } else if (rest.startsWith('rate:')) {
      if (await moveRateLimit(client, keys, key, rest.slice(5), now)) moved.rateLimits++;
    } else if (rest.startsWith('consent:')) {
      if (await moveConsent(client, keys, key, now)) moved.consents++;
    }
  }
  return moved;
}

/** A round-1 code or refresh token (hash `r`, `exp`, `grant`, markers) into its grant's slot, with its pointer. */
async function moveGrantRecord(
  client: RedisClient,
  keys: KeyLayout,
  key: string,
  kind: 'code' | 'rt',
  hash: string,
  now: number,
): Promise<boolean> {
  const fields = await client.hgetall(key);
  const grantId = fields.grant;
  if (!fields.r || !grantId || !(Number(fields.exp) > now)) return deleted(client, key);
  const record = JSON.parse(fields.r) as { userId?: string };
  const userId = record.userId;
  if (kind === 'rt') fields.r = JSON.stringify(subjectOfRoundOne(record));
  const target = kind === 'code' ? keys.code(grantId, hash) : keys.refreshToken(grantId, hash);
  const pointer = kind === 'code' ? keys.codePointer(hash) : keys.refreshTokenPointer(hash);
  if (!(await client.exists(target))) {
    await client.set(pointer, pointerValue(grantId, userId), 'PXAT', expireAt(Number(fields.exp)));
    await client
      .multi()
      .hset(target, fields)
      .pexpireat(target, expireAt(Number(fields.exp)))
      .exec()
      .then(throwOnFailedStep);
  }
  return deleted(client, key, true);
}

/** Round 1's refresh token JSON had `userId`; v2's has a subject. */
function subjectOfRoundOne(record: Record<string, unknown>): RefreshTokenRecord {
  const { userId, ...rest } = record;
  if (rest.subject !== undefined || typeof userId !== 'string')
    return record as unknown as RefreshTokenRecord;
  return { ...rest, subject: { kind: 'user', userId } } as RefreshTokenRecord;
}

/** A revocation marker (a string holding its expiry). */
async function moveMarker(client: RedisClient, key: string, target: string, now: number): Promise<boolean> {
  const until = await client.get(key);
  if (until === null || !(Number(until) > now)) return deleted(client, key);
  // Keeps the later expiry if v2 already revoked the same grant or token.
  const current = await client.get(target);
  if (current === null || Number(current) < Number(until)) await client.set(target, until, 'PXAT', until);
  return deleted(client, key, true);
}

/** A user's mark (`"<at> <expiresAt>"`); an existing v2 mark is left as it is. */
async function moveUserMark(client: RedisClient, key: string, target: string, now: number): Promise<boolean> {
  const mark = await client.get(key);
  const expiresAt = mark === null ? Number.NaN : Number(mark.slice(mark.indexOf(' ') + 1));
  if (mark === null || !(expiresAt > now)) return deleted(client, key);
  await client.set(target, mark, 'PXAT', expireAt(expiresAt), 'NX');
  return deleted(client, key, true);
}

async function deleted(client: RedisClient, key: string, moved = false): Promise<boolean> {
  await client.unlink(key);
  return moved;
}
