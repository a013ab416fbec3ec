import type { GatehouseStorage, StorageEngine } from '@gatehousejs/core';
import { checkInstanceId, DEFAULT_INSTANCE_ID } from '@gatehousejs/core/engine';
import pg from 'pg';
import { postgresGrantStore } from './grant-store.js';
import { hostListClient, parseHostList } from './host-list.js';
import { postgresKeyValueStore } from './key-value.js';
import { postgresClientRegistry } from './registry-stores.js';
import { type RevocationHub, revocationHub } from './revocation-channel.js';
import { DEFAULT_SCHEMA, instanceTables, type Tables, tables } from './schema.js';
import { type Statements, statements } from './statements.js';
import { type SweepOptions, scheduleSweeps, sweepExpired } from './sweeper.js';

/** Options of {@link postgresEngine}: give a `pool`, or a `connectionString` to let the engine make one. */
export interface PostgresEngineOptions {
  /**
   * Your own `pg` pool, used as configured: give it bounded timeouts (see {@link failFastPoolConfig}),
   * listen to its `error` event, and close it yourself.
   */
  readonly pool?: pg.Pool;
  /**
   * `postgres://…`: the engine creates (and {@link PostgresEngine.close}s) a pool with bounded
   * timeouts. It may list several hosts with libpq's `target_session_attrs` (`read-write`,
   * `primary` or `any`): `postgres://u@db1:5432,db2:5432/app?target_session_attrs=read-write`, and
   * each new connection goes to the first host that accepts that kind of session, so the pool
   * follows a failover (see {@link failFastPoolConfig}).
   */
  readonly connectionString?: string;
  /**
   * PostgreSQL itself, for the one connection that `LISTEN`s (pushed revocations), when
   * `connectionString` or `pool` goes through a pooler in transaction mode (PgBouncer), where
   * `LISTEN` does not hold. May list hosts like `connectionString`. Default: the pool's settings.
   */
  readonly listenConnectionString?: string;
  /** Schema holding the tables of every instance (see `migrate`). Default `gatehouse`. */
  readonly schema?: string;
  /** How often expired rows are swept, in ms; `0` disables the timer (call `sweepExpired` yourself). Default 60000. */
  readonly sweepIntervalMs?: number;
  /** Where sweep failures go. Default: ignored (the next sweep retries). */
  readonly onSweepError?: (error: unknown) => void;
  /** Bound on each statement of a pool made from `connectionString`, in ms. Default 5000. */
  readonly statementTimeoutMs?: number;
  /**
   * Run the engine's statements as named prepared statements (parsed and planned once per
   * connection; about 2–4× the throughput of the token paths, see `statements.ts`). Turn it off
   * behind a pooler that does not keep prepared statements across transactions (PgBouncer in
   * transaction mode before 1.21 or without `max_prepared_statements`); the engine also falls back
   * to unnamed statements by itself when one goes missing. Default `true`.
   */
  readonly preparedStatements?: boolean;
}

/** Options of {@link postgresStorage}: those of the engine. */
export type PostgresStorageOptions = PostgresEngineOptions;

/** The pool and the housekeeping of an engine, shared by all its instances. */
export interface PostgresHousekeeping {
  readonly pool: pg.Pool;
  /** Deletes expired rows of every instance now, in batches; resolves to the number deleted. */
  sweepExpired(options?: SweepOptions): Promise<number>;
  /**
   * Stops the sweep timer, closes the engine's listening connection (pushed revocations) and
   * closes the pool if the engine created it.
   */
  close(): Promise<void>;
}

/** One schema for any number of instances: {@link instance} hands out each one's stores. */
export interface PostgresEngine extends StorageEngine, PostgresHousekeeping {}

/** One instance's stores (the instance `default`), plus the engine's pool and housekeeping. */
export interface PostgresStorage extends GatehouseStorage, PostgresHousekeeping {}

/**
 * Pool settings under which an unreachable or stuck server fails a request within bounded time:
 * connection attempts, statements and queries all time out. A connection string listing several
 * hosts (`postgres://u@db1,db2:5433/app?target_session_attrs=read-write`, as libpq reads it) gets a
 * `Client` class that connects to the first host accepting that kind of session and looks again
 * after a connection to it breaks: spread these settings into your own `pg.Pool` to keep that.
 */
export function failFastPoolConfig(connectionString: string, statementTimeoutMs = 5000): pg.PoolConfig {
  const list = parseHostList(connectionString);
  return {
    connectionString: list?.connectionString ?? connectionString,
    ...(list ? { Client: hostListClient(list) as unknown as pg.PoolConfig['Client'] } : {}),
    max: 10,
    connectionTimeoutMillis: 2000,
    idleTimeoutMillis: 30_000,
    statement_timeout: statementTimeoutMs,
    query_timeout: statementTimeoutMs + 1000,
  };
}

/**
 * Gatehouse storage on PostgreSQL (≥ 12) for any number of instances in one schema: grants,
 * registered clients and the key-value store (on which Gatehouse keeps sessions, consents, rate
 * limits and replay ids), in the tables created by `migrate`. Every table has `instance_id` in its primary key and every
 * statement of a view names its instance, so instances are kept apart by construction, without a
 * schema, a migration or a sweep timer each. Atomic steps are single statements; expired rows are invisible at once and
 * swept in the background (one sweeper for all instances).
 *
 * @example
 * ```ts
 * const engine = postgresEngine({ connectionString: process.env.DATABASE_URL });
 * await migrate(engine.pool);
 * const a = createGatehouse({ ...options, issuer: 'https://a.example', storage: engine });
 * const b = createGatehouse({ ...options, issuer: 'https://b.example', storage: engine });
 * ```
 */
export function postgresEngine(options: PostgresEngineOptions): PostgresEngine {
  if (!options.pool && !options.connectionString)
    throw new TypeError('postgresEngine: give `pool` or `connectionString`.');
  const t = tables(options.schema ?? DEFAULT_SCHEMA);
  const owned = options.pool === undefined;
  const pool =
    options.pool ?? new pg.Pool(failFastPoolConfig(options.connectionString!, options.statementTimeoutMs));
  // An idle client losing its connection emits `error` on the pool; unhandled, it would crash the process.
  if (owned) pool.on('error', () => {});
  const run = statements(pool, options.preparedStatements ?? true);
  const sweep = (sweepOptions?: SweepOptions) => sweepExpired(run, t, sweepOptions);
  const interval = options.sweepIntervalMs ?? 60_000;
  const stopSweeps =
    interval > 0 ? scheduleSweeps(sweep, interval, options.onSweepError ?? (() => {})) : () => {};
  const views = new Map<string, GatehouseStorage>();
  // Pushed revocations: one listening connection, opened when a Gatehouse instance first asks.
  const hub = revocationHub(
    pool,
    run,
    t,
    options.listenConnectionString === undefined
      ? undefined
      : failFastPoolConfig(options.listenConnectionString, options.statementTimeoutMs),
  );

  return {
    pool,
    instance(instanceId) {
      const id = checkInstanceId(instanceId);
      let view = views.get(id);
      if (!view) {
        view = instanceView(pool, run, t, id, hub);
        views.set(id, view);
      }
      return view;
    },
    sweepExpired: sweep,
    async close() {
      stopSweeps();
      await hub.close();
      if (owned) await pool.end();
    },
  };
}

/**
 * Gatehouse storage on PostgreSQL for one instance: the view of the instance `default` of a
 * {@link postgresEngine}, with its pool and housekeeping. Round 1's rows are migrated to that
 * instance, so a host upgrading keeps its tokens and sessions.
 *
 * @example
 * ```ts
 * const pool = new pg.Pool(failFastPoolConfig(process.env.DATABASE_URL!));
 * await migrate(pool);
 * const gatehouse = createGatehouse({ ...options, storage: postgresStorage({ pool }) });
 * ```
 */
export function postgresStorage(options: PostgresStorageOptions): PostgresStorage {
  const engine = postgresEngine(options);
  return {
    ...engine.instance(DEFAULT_INSTANCE_ID),
    pool: engine.pool,
    sweepExpired: engine.sweepExpired,
    close: engine.close,
  };
}

/** The stores of one instance. */
function instanceView(
  pool: pg.Pool,
  run: Statements,
  t: Tables,
  instanceId: string,
  hub: RevocationHub,
): GatehouseStorage {
  return {
    grants: postgresGrantStore(run, t, instanceId, hub),
    clients: postgresClientRegistry(run, t, instanceId),
    kv: postgresKeyValueStore(run, t, instanceId),
    clear: () => clearInstance(pool, t, instanceId),
  };
}

/** Deletes every row of one instance, one DELETE per table, in one transaction. */
async function clearInstance(pool: pg.Pool, t: Tables, instanceId: string): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    for (const table of instanceTables(t)) {
      await client.query(`DELETE FROM ${table} WHERE instance_id = $1`, [instanceId]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
