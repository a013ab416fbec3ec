import { type KeyValueStore, wholeInstant } from '@gatehousejs/core/engine';
import { throwOnFailedStep } from './grant-store.js';
import { addScript, incrementScript, swapScript, takeScript } from './key-value-scripts.js';
import { expireAt, type KeyLayout } from './keys.js';
import type { RedisClient } from './script.js';

/**
 * {@link KeyValueStore} on Redis: one hash per key (`v`, `exp`), under the instance's key space so
 * that `clear()` removes it. Each method is one command, one MULTI/EXEC or one script: `add`, `take`,
 * `swap` and `increment` are scripts, so that the expiry they honour is the caller's `now` (the contract's),
 * and each runs as one atomic step of Redis.
 */
export function redisKeyValueStore(client: RedisClient, keys: KeyLayout): KeyValueStore {
  return {
    async get(key, now) {
      const [value, exp] = await client.hmget(keys.keyValue(key), 'v', 'exp');
      return value == null || Number(exp) <= wholeInstant(now) ? null : value;
    },
    async set(key, value, expiresAt) {
      const entry = keys.keyValue(key);
      const exp = expireAt(expiresAt);
      // A past PEXPIREAT deletes the key at once, as an expired set should.
      await client
        .multi()
        .del(entry)
        .hset(entry, 'v', value, 'exp', exp)
        .pexpireat(entry, exp)
        .exec()
        .then(throwOnFailedStep);
    },
    async add(key, value, expiresAt, now) {
      const added = await addScript.run(
        client,
        [keys.keyValue(key)],
        [String(wholeInstant(now)), value, expireAt(expiresAt)],
      );
      return added === 1;
    },
    async take(key, now) {
      const value = await takeScript.run(client, [keys.keyValue(key)], [String(wholeInstant(now))]);
      return typeof value === 'string' ? value : null;
    },
    async swap(key, expected, value, expiresAt, now) {
      const swapped = await swapScript.run(
        client,
        [keys.keyValue(key)],
        [String(wholeInstant(now)), expected, value, expireAt(expiresAt)],
      );
      return swapped === 1;
    },
    async delete(key) {
      await client.del(keys.keyValue(key));
    },
    async increment(key, by, expiresAt, now) {
      const count = await incrementScript.run(
        client,
        [keys.keyValue(key)],
        [String(wholeInstant(now)), String(by), expireAt(expiresAt)],
      );
      return Number(count);
    },
  };
}
