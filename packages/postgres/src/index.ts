/**
 * `@gatehouse/postgres`: Gatehouse storage on PostgreSQL, for several processes sharing grants,
 * sessions, consents and rate limits. Ships its SQL migrations (`migrations/`) and {@link migrate}.
 * @packageDocumentation
 */
export { type MigrateOptions, migrate } from './migrate.js';
export {
  failFastPoolConfig,
  type PostgresStorage,
  type PostgresStorageOptions,
  postgresStorage,
} from './postgres-storage.js';
export type { SweepOptions } from './sweeper.js';
