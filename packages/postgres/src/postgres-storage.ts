import type { GatehouseStorage } from '@gatehouse/core';
import pg from 'pg';
import { postgresGrantStore } from './grant-store.js';
import { DEFAULT_SCHEMA, tables } from './schema.js';
import { postgresConsentStore, postgresRateLimitStore, postgresSessionStore } from './session-stores.js';
import { type SweepOptions, scheduleSweeps, sweepExpired } from './sweeper.js';

/** Options of {@link postgresStorage}: give a `pool`, or a `connectionString` to let the engine make one. */
export interface PostgresStorageOptions {
  /**
   * Your own `pg` pool, used as configured: give it bounded timeouts (see {@link failFastPoolConfig}),
   * listen to its `error` event, and close it yourself.
   */
  readonly pool?: pg.Pool;
  /** `postgres://…`: the engine creates (and {@link PostgresStorage.close}s) a pool with bounded timeouts. */
  readonly connectionString?: string;
  /** Schema holding the tables (see `migrate`). Default `gatehouse`. */
  readonly schema?: string;
  /** How often expired rows are swept, in ms; `0` disables the timer (call `sweepExpired` yourself). Default 60000. */
  readonly sweepIntervalMs?: number;
  /** Where sweep failures go. Default: ignored (the next sweep retries). */
  readonly onSweepError?: (error: unknown) => void;
  /** Bound on each statement of a pool made from `connectionString`, in ms. Default 5000. */
  readonly statementTimeoutMs?: number;
}

/** The four stores, plus the pool and housekeeping. */
export interface PostgresStorage extends GatehouseStorage {
  readonly pool: pg.Pool;
  /** Deletes expired rows now, in batches; resolves to the number deleted. */
  sweepExpired(options?: SweepOptions): Promise<number>;
  /** Stops the sweep timer and closes the pool if the engine created it. */
  close(): Promise<void>;
}

/**
 * Pool settings under which an unreachable or stuck server fails a request within bounded time:
 * connection attempts, statements and queries all time out.
 */
export function failFastPoolConfig(connectionString: string, statementTimeoutMs = 5000): pg.PoolConfig {
  return {
    connectionString,
    max: 10,
    connectionTimeoutMillis: 2000,
    idleTimeoutMillis: 30_000,
    statement_timeout: statementTimeoutMs,
    query_timeout: statementTimeoutMs + 1000,
  };
}

/**
 * Gatehouse storage on PostgreSQL (≥ 12): grants, sessions, consents and rate limits, in the tables
 * created by `migrate`. Atomic steps are single statements; expired rows are invisible at once and
 * swept in the background.
 *
 * @example
 * ```ts
 * const pool = new pg.Pool(failFastPoolConfig(process.env.DATABASE_URL!));
 * await migrate(pool);
 * const gatehouse = createGatehouse({ ...options, storage: postgresStorage({ pool }) });
 * ```
 */
export function postgresStorage(options: PostgresStorageOptions): PostgresStorage {
  if (!options.pool && !options.connectionString)
    throw new TypeError('postgresStorage: give `pool` or `connectionString`.');
  const t = tables(options.schema ?? DEFAULT_SCHEMA);
  const owned = options.pool === undefined;
  const pool =
    options.pool ?? new pg.Pool(failFastPoolConfig(options.connectionString!, options.statementTimeoutMs));
  // An idle client losing its connection emits `error` on the pool; unhandled, it would crash the process.
  if (owned) pool.on('error', () => {});
  const sweep = (sweepOptions?: SweepOptions) => sweepExpired(pool, t, sweepOptions);
  const interval = options.sweepIntervalMs ?? 60_000;
  const stopSweeps =
    interval > 0 ? scheduleSweeps(sweep, interval, options.onSweepError ?? (() => {})) : () => {};

  return {
    pool,
    grants: postgresGrantStore(pool, t),
    sessions: postgresSessionStore(pool, t),
    consents: postgresConsentStore(pool, t),
    rateLimits: postgresRateLimitStore(pool, t),
    sweepExpired: sweep,
    async close() {
      stopSweeps();
      if (owned) await pool.end();
    },
  };
}
