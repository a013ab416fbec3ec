import { checkInstanceId, DEFAULT_INSTANCE_ID, STATE_KEYS, wholeInstant } from '@gatehousejs/core/engine';
import { nodesOf } from './clear.js';
import { addScript } from './key-value-scripts.js';
import { checkPrefix, expireAt, type KeyLayout, keyLayout } from './keys.js';
import type { RedisClient } from './script.js';

/** Options of {@link migrateRedisToKv}. */
export interface MigrateRedisToKvOptions {
  /** The client of the server (or Cluster) holding the instance's keys. */
  readonly client: RedisClient;
  /** The engine's `prefix`. Default `gatehouse`. */
  readonly prefix?: string;
  /** The instance whose keys move. Default `default`, the instance of `redisStorage`. */
  readonly instanceId?: string;
  /** Time used to skip already expired records (epoch ms). Default `Date.now()`. */
  readonly now?: number;
}

/** How many live records of each kind {@link migrateRedisToKv} moved. */
export interface MigratedToKv {
  sessions: number;
  consents: number;
  rateLimits: number;
  replayIds: number;
}

/**
 * Moves one instance's sessions, consents, rate-limit windows and replay ids from their storage
 * contract v2 keys (`{<I>:session:…}`, `consent:`, `rate:`, `once:`) into the key-value store,
 * under the keys Gatehouse's kv-built stores read (`STATE_KEYS`), keeping each record's fields and
 * expiry, then deletes the old keys. Run it once per instance at upgrade, after the v2 processes
 * stopped (a session a v2 process creates afterwards is unknown to v3: its user signs in again).
 * Idempotent: a second run finds nothing left to move, and an entry v3 already holds is never
 * overwritten (the move is a set-if-absent). Scans (never KEYS) every master of a Cluster.
 */
export async function migrateRedisToKv(options: MigrateRedisToKvOptions): Promise<MigratedToKv> {
  const keys = keyLayout(
    checkPrefix(options.prefix ?? 'gatehouse'),
    checkInstanceId(options.instanceId ?? DEFAULT_INSTANCE_ID),
  );
  const { client } = options;
  const now = options.now ?? Date.now();
  const moved: MigratedToKv = { sessions: 0, consents: 0, rateLimits: 0, replayIds: 0 };
  const { v2State } = keys;
  for (const key of await scanAll(client, v2State.sessions)) {
    if (await moveSession(client, keys, key, v2State.rest(key, 'session'), now)) moved.sessions++;
  }
  for (const key of await scanAll(client, v2State.consents)) {
    if (await moveConsent(client, keys, key, now)) moved.consents++;
  }
  for (const key of await scanAll(client, v2State.rateLimits)) {
    if (await moveRateLimit(client, keys, key, v2State.rest(key, 'rate'), now)) moved.rateLimits++;
  }
  for (const key of await scanAll(client, v2State.replayIds)) {
    if (await moveReplayId(client, keys, key, v2State.rest(key, 'once'), now)) moved.replayIds++;
  }
  return moved;
}

/**
 * A session hash (`r`: the record as JSON without `lastSeenAt`, `exp`, `seen`), of contract v2 or
 * round 1, into the key-value store.
 */
export async function moveSession(
  client: RedisClient,
  keys: KeyLayout,
  key: string,
  idHash: string,
  now: number,
): Promise<boolean> {
  const fields = await client.hgetall(key);
  const expiresAt = Number(fields.exp);
  if (!fields.r || !(expiresAt > now)) return deleted(client, key);
  const record = { ...(JSON.parse(fields.r) as object), idHash, lastSeenAt: Number(fields.seen) };
  await addEntry(client, keys.keyValue(STATE_KEYS.session(idHash)), JSON.stringify(record), expiresAt, now);
  return deleted(client, key, true);
}

/** A consent (JSON holding its own user, client and expiry), of contract v2 or round 1. */
export async function moveConsent(
  client: RedisClient,
  keys: KeyLayout,
  key: string,
  now: number,
): Promise<boolean> {
  const json = await client.get(key);
  if (json === null) return false;
  const record = JSON.parse(json) as { userId: string; clientId: string; expiresAt: number };
  if (!(record.expiresAt > now)) return deleted(client, key);
  const target = keys.keyValue(await STATE_KEYS.consent(record.userId, record.clientId));
  await addEntry(client, target, json, record.expiresAt, now);
  return deleted(client, key, true);
}

/** A rate-limit window (hash `count`, `reset`): its counter and its end, both until `reset`. */
export async function moveRateLimit(
  client: RedisClient,
  keys: KeyLayout,
  key: string,
  name: string,
  now: number,
): Promise<boolean> {
  const [count, reset] = await client.hmget(key, 'count', 'reset');
  const resetAt = Number(reset);
  if (count == null || !(resetAt > now)) return deleted(client, key);
  await addEntry(client, keys.keyValue(STATE_KEYS.rateEnd(name)), String(resetAt), resetAt, now);
  await addEntry(client, keys.keyValue(STATE_KEYS.rateCount(name)), count, resetAt, now);
  return deleted(client, key, true);
}

/** A used replay id (a string expiring with the id). */
async function moveReplayId(
  client: RedisClient,
  keys: KeyLayout,
  key: string,
  id: string,
  now: number,
): Promise<boolean> {
  const ttl = await client.pttl(key);
  if (ttl <= 0) return deleted(client, key);
  await addEntry(client, keys.keyValue(STATE_KEYS.once(id)), '1', now + ttl, now);
  return deleted(client, key, true);
}

/** Writes a key-value entry unless a live one is there (v3 may already have written it). */
async function addEntry(
  client: RedisClient,
  target: string,
  value: string,
  expiresAt: number,
  now: number,
): Promise<void> {
  await addScript.run(client, [target], [String(wholeInstant(now)), value, expireAt(expiresAt)]);
}

async function deleted(client: RedisClient, key: string, moved = false): Promise<boolean> {
  await client.unlink(key);
  return moved;
}

/** Every key matching `pattern`, on every master. */
export async function scanAll(client: RedisClient, pattern: string): Promise<string[]> {
  const found: string[] = [];
  for (const node of nodesOf(client)) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      found.push(...keys);
      cursor = next;
    } while (cursor !== '0');
  }
  return found;
}
