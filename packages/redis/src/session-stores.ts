import {
  type ConsentRecord,
  type ConsentStore,
  type RateLimitStore,
  type SessionRecord,
  type SessionStore,
  wholeExpiry,
  wholeInstant,
} from '@gatehousejs/core/engine';
import { throwOnFailedStep } from './grant-store.js';
import { expireAt, type KeyLayout } from './keys.js';
import type { RedisClient } from './script.js';
import { incrementScript, touchSessionScript } from './session-scripts.js';

/**
 * {@link SessionStore} on Redis. A session is a hash: `r` (the record as JSON, without
 * `lastSeenAt`), `exp` and `seen` (lastSeenAt), so that a touch rewrites one field. Redis deletes
 * it at `expiresAt` (`PEXPIREAT`).
 */
export function redisSessionStore(client: RedisClient, keys: KeyLayout): SessionStore {
  return {
    async createSession(record) {
      const { lastSeenAt, ...rest } = record;
      const key = keys.session(record.idHash);
      await client
        .multi()
        .del(key)
        .hset(
          key,
          'r',
          JSON.stringify(rest),
          'exp',
          expireAt(record.expiresAt),
          'seen',
          String(wholeInstant(lastSeenAt)),
        )
        .pexpireat(key, expireAt(record.expiresAt))
        .exec()
        .then(throwOnFailedStep);
    },
    async findSession(idHash, now) {
      const [json, exp, seen] = await client.hmget(keys.session(idHash), 'r', 'exp', 'seen');
      if (json == null || Number(exp) <= wholeInstant(now)) return null;
      return { ...(JSON.parse(json) as Omit<SessionRecord, 'lastSeenAt'>), lastSeenAt: Number(seen) };
    },
    async touchSession(idHash, lastSeenAt) {
      await touchSessionScript.run(client, [keys.session(idHash)], [String(wholeInstant(lastSeenAt))]);
    },
    async deleteSession(idHash) {
      await client.del(keys.session(idHash));
    },
  };
}

/** {@link ConsentStore} on Redis: one JSON string per (user, client), expiring with the consent. */
export function redisConsentStore(client: RedisClient, keys: KeyLayout): ConsentStore {
  return {
    async findConsent(userId, clientId, now) {
      const json = await client.get(keys.consent(userId, clientId));
      if (json === null) return null;
      const record = JSON.parse(json) as ConsentRecord;
      return record.expiresAt > now ? record : null;
    },
    async saveConsent(record) {
      await client.set(
        keys.consent(record.userId, record.clientId),
        JSON.stringify(record),
        'PXAT',
        expireAt(record.expiresAt),
      );
    },
    async deleteConsent(userId, clientId) {
      await client.del(keys.consent(userId, clientId));
    },
  };
}

/** {@link RateLimitStore} on Redis: fixed windows counted by one script, expiring with the window. */
export function redisRateLimitStore(client: RedisClient, keys: KeyLayout): RateLimitStore {
  return {
    async get(key, now) {
      const [count, resetAt] = await client.hmget(keys.rateLimit(key), 'count', 'reset');
      if (count === null || Number(resetAt) <= now) return null;
      return { count: Number(count), resetAt: Number(resetAt) };
    },
    async increment(key, windowMs, now) {
      const [count, resetAt] = (await incrementScript.run(
        client,
        [keys.rateLimit(key)],
        [String(wholeInstant(now)), String(wholeExpiry(windowMs))],
      )) as [number, string];
      return { count: Number(count), resetAt: Number(resetAt) };
    },
    async reset(key) {
      await client.del(keys.rateLimit(key));
    },
  };
}
