/**
 * `@gatehousejs/postgres`: Gatehouse storage on PostgreSQL, for several processes sharing grants,
 * registered clients and the key-value store (sessions, consents, rate limits, replay ids, flow
 * state) of any number of instances in one schema. Ships its SQL migrations (`migrations/`) and {@link migrate}.
 * @packageDocumentation
 */
export { type MigrateOptions, migrate } from './migrate.js';
export {
  failFastPoolConfig,
  type PostgresEngine,
  type PostgresEngineOptions,
  type PostgresHousekeeping,
  type PostgresStorage,
  type PostgresStorageOptions,
  postgresEngine,
  postgresStorage,
} from './postgres-storage.js';
export type { SweepOptions } from './sweeper.js';
