/**
 * `@gatehousejs/redis`: Gatehouse storage on Redis, for several processes (and any number of
 * instances) sharing grants, registered clients and the key-value store Gatehouse keeps sessions,
 * consents, rate limits and replay ids in.
 * @packageDocumentation
 */
export { type MigratedKeys, type MigrateRedisKeysOptions, migrateRedisKeys } from './migrate-keys.js';
export { type MigratedToKv, type MigrateRedisToKvOptions, migrateRedisToKv } from './migrate-kv.js';
export {
  failFastClusterOptions,
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
export type { WaitForReplicasOptions } from './wait-for-replicas.js';
