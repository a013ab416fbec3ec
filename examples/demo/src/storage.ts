/**
 * Storage engine selection for the demo, by environment:
 *
 * - `GATEHOUSE_STORE=memory` (default): every store in memory (`memoryStorage()`, one process).
 * - `GATEHOUSE_STORE=redis` + `REDIS_URL=redis://…`: `@gatehousejs/redis` on one server; or
 *   `REDIS_CLUSTER_NODES=host:port,…` (some or all nodes of a Redis Cluster), or
 *   `REDIS_SENTINELS=host:port,…` with `REDIS_SENTINEL_NAME` (the primary the Sentinels monitor,
 *   default `mymaster`), instead of `REDIS_URL`. `REDIS_WAIT_FOR_REPLICAS=<n>` (not on a Cluster):
 *   a write counts once `n` replicas have it (`waitForReplicas`, Redis `WAIT`).
 * - `GATEHOUSE_STORE=postgres` + `DATABASE_URL=postgres://…`: `@gatehousejs/postgres` (migrated on start).
 *   `DATABASE_URL` may list hosts (`postgres://u@db1,db2/app?target_session_attrs=read-write`). Behind
 *   PgBouncer in transaction mode, `DATABASE_DIRECT_URL` names PostgreSQL itself, where the engine
 *   keeps its `LISTEN` connection (pushed revocations).
 *
 * `GATEHOUSE_STORE_NAMESPACE` (default `gatehouse_demo`) is the Redis key prefix or the PostgreSQL
 * schema, so several demos can share one server. Engines are imported only when selected.
 */
import { type GatehouseStorage, memoryEngine, memoryStorage, type StorageEngine } from '@gatehousejs/core';
import type { RedisEngineOptions } from '@gatehousejs/redis';

/** The engines the demo can run on. */
export type DemoStoreEngine = 'memory' | 'redis' | 'postgres';

/** Every store for `createGatehouse({ storage })`, plus how to close them. */
export interface DemoStorage extends GatehouseStorage {
  readonly engine: DemoStoreEngine;
  /** Closes the engine's connections. */
  close(): Promise<void>;
}

type Env = Record<string, string | undefined>;

/** The engine named by `GATEHOUSE_STORE`, connected (and for PostgreSQL, migrated). */
export async function storageFromEnv(env: Env = process.env): Promise<DemoStorage> {
  const engine = (env.GATEHOUSE_STORE ?? 'memory').trim().toLowerCase() || 'memory';
  const namespace = env.GATEHOUSE_STORE_NAMESPACE ?? 'gatehouse_demo';
  switch (engine) {
    case 'memory':
      return { ...memoryStorage(), engine, close: async () => {} };
    case 'redis': {
      const { redisStorage } = await import('@gatehousejs/redis');
      const storage = redisStorage({ ...redisServers(env), prefix: namespace });
      await closeOnFailure(storage, () => storage.ready());
      return { ...stores(storage), engine, close: () => storage.close() };
    }
    case 'postgres': {
      const connectionString = required(env, 'DATABASE_URL', engine);
      const { migrate, postgresStorage } = await import('@gatehousejs/postgres');
      const storage = postgresStorage({ ...postgresConnection(env, connectionString), schema: namespace });
      await closeOnFailure(storage, () => migrate(storage.pool, { schema: namespace }));
      return { ...stores(storage), engine, close: () => storage.close() };
    }
    default:
      throw new Error(`GATEHOUSE_STORE must be memory, redis or postgres (got "${engine}").`);
  }
}

/** A storage engine shared by many instances (`createGatehouseHost`), plus how to close it. */
export interface DemoEngine {
  readonly kind: DemoStoreEngine;
  readonly engine: StorageEngine;
  /** Closes the engine's connections. */
  close(): Promise<void>;
}

/**
 * The engine named by `GATEHOUSE_STORE` for every instance of a host (each under its own instance
 * id), connected (and for PostgreSQL, migrated): what {@link storageFromEnv} is for one instance.
 */
export async function engineFromEnv(env: Env = process.env): Promise<DemoEngine> {
  const kind = (env.GATEHOUSE_STORE ?? 'memory').trim().toLowerCase() || 'memory';
  const namespace = env.GATEHOUSE_STORE_NAMESPACE ?? 'gatehouse_demo';
  switch (kind) {
    case 'memory':
      return { kind, engine: memoryEngine(), close: async () => {} };
    case 'redis': {
      const { redisEngine } = await import('@gatehousejs/redis');
      const engine = redisEngine({ ...redisServers(env), prefix: namespace });
      await closeOnFailure(engine, () => engine.ready());
      return { kind, engine, close: () => engine.close() };
    }
    case 'postgres': {
      const connectionString = required(env, 'DATABASE_URL', kind);
      const { migrate, postgresEngine } = await import('@gatehousejs/postgres');
      const engine = postgresEngine({ ...postgresConnection(env, connectionString), schema: namespace });
      await closeOnFailure(engine, () => migrate(engine.pool, { schema: namespace }));
      return { kind, engine, close: () => engine.close() };
    }
    default:
      throw new Error(`GATEHOUSE_STORE must be memory, redis or postgres (got "${kind}").`);
  }
}

/**
 * Where the Redis engine connects: `REDIS_CLUSTER_NODES` (a Cluster), else `REDIS_SENTINELS` (a
 * primary found through Sentinel), else `REDIS_URL`; and `REDIS_WAIT_FOR_REPLICAS`.
 */
function redisServers(env: Env): Omit<RedisEngineOptions, 'prefix'> {
  const list = (value: string) =>
    value
      .split(',')
      .map((address) => address.trim())
      .filter((address) => address !== '');
  const wait = env.REDIS_WAIT_FOR_REPLICAS
    ? { waitForReplicas: { replicas: Number(env.REDIS_WAIT_FOR_REPLICAS) } }
    : {};
  if (env.REDIS_CLUSTER_NODES) return { cluster: list(env.REDIS_CLUSTER_NODES), ...wait };
  if (env.REDIS_SENTINELS)
    return {
      sentinel: { sentinels: list(env.REDIS_SENTINELS), name: env.REDIS_SENTINEL_NAME || 'mymaster' },
      ...wait,
    };
  if (!env.REDIS_URL)
    throw new Error('GATEHOUSE_STORE=redis needs REDIS_URL (or REDIS_CLUSTER_NODES, or REDIS_SENTINELS).');
  return { url: env.REDIS_URL, ...wait };
}

/** The PostgreSQL engine's connection options: the pooled URL, and the direct one for `LISTEN` if given. */
function postgresConnection(env: Env, connectionString: string) {
  const direct = env.DATABASE_DIRECT_URL?.trim();
  return direct ? { connectionString, listenConnectionString: direct } : { connectionString };
}

function required(env: Env, name: string, engine: string): string {
  const value = env[name];
  if (!value) throw new Error(`GATEHOUSE_STORE=${engine} needs ${name}.`);
  return value;
}

/** Runs `step`; if it fails (engine unreachable), closes the engine's connections and rethrows. */
async function closeOnFailure(
  storage: { close(): Promise<void> },
  step: () => Promise<unknown>,
): Promise<void> {
  try {
    await step();
  } catch (error) {
    await storage.close();
    throw error;
  }
}

function stores({ grants, clients, kv, clear }: GatehouseStorage): GatehouseStorage {
  return { grants, clients, kv, clear };
}
