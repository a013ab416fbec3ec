/**
 * `@gatehousejs/redis`: Gatehouse storage on Redis, for several processes (and any number of
 * instances) sharing grants, sessions, consents, rate limits, registered clients and replay ids.
 * @packageDocumentation
 */
export { type MigratedKeys, type MigrateRedisKeysOptions, migrateRedisKeys } from './migrate-keys.js';
export {
  failFastOptions,
  type RedisEngine,
  type RedisEngineOptions,
  type RedisLifecycle,
  type RedisStorage,
  type RedisStorageOptions,
  redisEngine,
  redisStorage,
} from './redis-storage.js';
export type { RedisClient } from './script.js';
