/**
 * `@gatehouse/redis`: Gatehouse storage on Redis, for several processes sharing grants, sessions,
 * consents and rate limits.
 * @packageDocumentation
 */
export {
  failFastOptions,
  type RedisStorage,
  type RedisStorageOptions,
  redisStorage,
} from './redis-storage.js';
export type { RedisClient } from './script.js';
