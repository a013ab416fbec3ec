import type { GatehouseStorage, StorageEngine } from '@gatehousejs/core';
import { checkInstanceId, DEFAULT_INSTANCE_ID } from '@gatehousejs/core/engine';
import { Cluster, Redis } from 'ioredis';
import { clearInstance } from './clear.js';
import { redisGrantStore } from './grant-store.js';
import { redisKeyValueStore } from './key-value.js';
import { checkPrefix, keyLayout } from './keys.js';
import { redisClientRegistry } from './registry-stores.js';
import { revocationHub } from './revocation-channel.js';
import type { RedisClient } from './script.js';
import {
  checkWaitForReplicas,
  type WaitForReplicasOptions,
  waitingForReplicas,
} from './wait-for-replicas.js';

/**
 * Options of {@link redisEngine}: give a `client`, or one of `url`, `cluster` and `sentinel` to let
 * the engine make one.
 */
export interface RedisEngineOptions {
  /**
   * Your own ioredis client (`Redis` or `Cluster`). It is used as configured; give it bounded
   * timeouts (see {@link failFastOptions}) so an unreachable server fails requests fast, and it is
   * yours to close.
   */
  readonly client?: RedisClient;
  /** `redis://…` / `rediss://…`: the engine creates (and {@link RedisEngine.close}s) a client. */
  readonly url?: string;
  /**
   * A Redis Cluster: some or all of its nodes (`host:port`), from which the client learns the
   * rest. The engine creates (and closes) an ioredis `Cluster` with fail-fast settings
   * ({@link failFastClusterOptions}). Give your own `client` for passwords or TLS.
   */
  readonly cluster?: readonly string[];
  /**
   * Redis Sentinel: the Sentinels (`host:port`) and the name of the primary they monitor. The
   * engine creates (and closes) a client that asks them for the primary, and again after every
   * failover. Give your own `client` for passwords or TLS.
   */
  readonly sentinel?: { readonly sentinels: readonly string[]; readonly name: string };
  /**
   * Namespace of every key, for applications or test runs sharing one server (instances of one
   * application share it: their keys are apart by instance id). Default `gatehouse`. No braces: the
   * engine places the Cluster hash tags itself.
   */
  readonly prefix?: string;
  /** Bound on each command of a client the engine makes, in ms. Default 2000. */
  readonly commandTimeoutMs?: number;
  /**
   * Count a write as done only once this many replicas have it (Redis `WAIT`, sent behind each
   * write on the same connection): a failover then loses no write Gatehouse acknowledged. Without
   * it, Redis's asynchronous replication loses what the primary acknowledged in its last moments,
   * or after a failover promoted its replica (see the README, "Failover"). A write not acknowledged
   * in `timeoutMs` (default 500) fails (503). A single server (standalone or Sentinel) only.
   */
  readonly waitForReplicas?: WaitForReplicasOptions;
}

/** Options of {@link redisStorage}: those of the engine. */
export type RedisStorageOptions = RedisEngineOptions;

/** The client and lifecycle of an engine, shared by all its instances. */
export interface RedisLifecycle {
  readonly client: RedisClient;
  /**
   * Resolves once the client is connected (commands fail fast before that); rejects if that takes
   * longer than `timeoutMs` (default 10000), so a host can refuse to start without Redis.
   */
  ready(timeoutMs?: number): Promise<void>;
  /**
   * Closes the client if the engine created it (from `url`, `cluster` or `sentinel`); leaves a given `client` open. Always
   * closes the engine's own subscriber connection (pushed revocations).
   */
  close(): Promise<void>;
}

/** One key space for any number of instances: {@link instance} hands out each one's stores. */
export interface RedisEngine extends StorageEngine, RedisLifecycle {}

/** One instance's stores (the instance `default`), plus the engine's client and lifecycle. */
export interface RedisStorage extends GatehouseStorage, RedisLifecycle {}

/**
 * Client options under which an unreachable Redis fails a command at once instead of queueing it:
 * no offline queue, one retry, bounded connect and command times. Reconnection continues in the
 * background, so service resumes by itself when Redis returns. ioredis's re-sending of a command
 * whose reply a dropped connection lost stays on (bounded by `maxRetriesPerRequest`): the grant
 * scripts are idempotent per call, so a re-run answers like the first run.
 */
export function failFastOptions(commandTimeoutMs = 2000) {
  return {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: commandTimeoutMs,
    commandTimeout: commandTimeoutMs,
    retryStrategy: (attempt: number) => Math.min(attempt * 100, 1000),
    // A server demoted by a failover while the connection stayed open refuses writes (READONLY,
    // nothing written): reconnect, so that a Sentinel client asks again for the primary.
    reconnectOnError: (error: Error) => error.message.startsWith('READONLY'),
    // Sentinel: asks the Sentinels again as soon as they announce a new primary.
    failoverDetector: true,
  };
}

/**
 * {@link failFastOptions} for an ioredis `Cluster`: no offline queue while the cluster is
 * unreachable, bounded refreshes of the slot map, and retries on a failover (`MOVED`,
 * `CLUSTERDOWN`, `TRYAGAIN`, a lost node) spaced 100 ms apart, within the command timeout. The
 * slot map is also refreshed every 5 s, so a failover nobody's command ran into is learnt anyway.
 */
export function failFastClusterOptions(commandTimeoutMs = 2000) {
  const {
    enableOfflineQueue,
    retryStrategy,
    failoverDetector: _,
    ...redisOptions
  } = failFastOptions(commandTimeoutMs);
  return {
    enableOfflineQueue,
    clusterRetryStrategy: retryStrategy,
    retryDelayOnFailover: 100,
    retryDelayOnClusterDown: 100,
    retryDelayOnTryAgain: 100,
    slotsRefreshTimeout: commandTimeoutMs,
    slotsRefreshInterval: 5000,
    redisOptions,
  };
}

/** The client of an engine given `url`, `cluster` or `sentinel` (exactly one). */
function ownClient(options: RedisEngineOptions): RedisClient {
  const given = (['url', 'cluster', 'sentinel'] as const).filter((name) => options[name] !== undefined);
  if (given.length !== 1)
    throw new TypeError('redisEngine: give `client`, or one of `url`, `cluster` and `sentinel`.');
  const fast = failFastOptions(options.commandTimeoutMs);
  if (options.url !== undefined) return new Redis(options.url, fast);
  if (options.cluster !== undefined) {
    if (options.cluster.length === 0) throw new TypeError('redisEngine: `cluster` lists no node.');
    return new Cluster(options.cluster.map(hostAndPort), failFastClusterOptions(options.commandTimeoutMs));
  }
  const { sentinels, name } = options.sentinel!;
  if (sentinels.length === 0) throw new TypeError('redisEngine: `sentinel.sentinels` lists no Sentinel.');
  return new Redis({ ...fast, sentinels: sentinels.map(hostAndPort), name });
}

/** `host:port` (`[v6]:port` too) as ioredis takes a node. */
function hostAndPort(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':');
  const port = Number(address.slice(colon + 1));
  const host = address.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  if (colon <= 0 || !Number.isInteger(port) || port <= 0 || port > 65535)
    throw new TypeError(`redisEngine: "${address}" is not host:port.`);
  return { host, port };
}

/**
 * Gatehouse storage on Redis (≥ 6.2) for any number of instances in one key space: grants,
 * registered clients and the key-value store (on which Gatehouse keeps sessions, consents, rate
 * limits and replay ids). Each
 * instance's keys carry its instance id (key layout v2, see keys.ts), so instances are apart by
 * construction; on Redis Cluster each grant hashes to its own slot. Atomic steps are Lua scripts or MULTI/EXEC, expiry is
 * enforced by Redis (`PEXPIREAT` at each record's `expiresAt`, so the instance clock must be the
 * wall clock), and no request path scans keys.
 *
 * @example
 * ```ts
 * const engine = redisEngine({ url: process.env.REDIS_URL });
 * await engine.ready();
 * const a = createGatehouse({ ...options, issuer: 'https://a.example', storage: engine });
 * const b = createGatehouse({ ...options, issuer: 'https://b.example', storage: engine });
 * ```
 */
export function redisEngine(options: RedisEngineOptions): RedisEngine {
  const prefix = checkPrefix(options.prefix ?? 'gatehouse');
  const owned = options.client === undefined;
  if (options.waitForReplicas)
    checkWaitForReplicas(
      options.waitForReplicas,
      options.client ? options.client.isCluster : options.cluster !== undefined,
    );
  const connection = options.client ?? ownClient(options);
  // Connection errors surface as failed commands (503); without a listener ioredis would also print them.
  if (owned) connection.on('error', () => {});
  // What the stores write through: the connection, or the connection waiting for replicas.
  const client = options.waitForReplicas
    ? waitingForReplicas(connection, options.waitForReplicas)
    : connection;
  const views = new Map<string, GatehouseStorage>();
  // Pushed revocations: one subscriber connection, opened when a Gatehouse instance first asks.
  const hub = revocationHub(client, prefix);

  return {
    client: connection,
    instance(instanceId) {
      const id = checkInstanceId(instanceId);
      let view = views.get(id);
      if (!view) {
        const keys = keyLayout(prefix, id);
        view = {
          grants: redisGrantStore(client, keys, hub),
          clients: redisClientRegistry(client, keys),
          kv: redisKeyValueStore(client, keys),
          clear: () => clearInstance(client, keys.pattern),
        };
        views.set(id, view);
      }
      return view;
    },
    ready: (timeoutMs = 10_000) => waitUntilReady(connection, timeoutMs),
    async close() {
      await hub.close();
      if (owned) await connection.quit().catch(() => connection.disconnect());
    },
  };
}

/**
 * Gatehouse storage on Redis for one instance: the view of the instance `default` of a
 * {@link redisEngine}, with its client and lifecycle. Round 1's keys are moved to that instance by
 * `migrateRedisKeys`, and contract v2's sessions, consents, counters and replay ids into the
 * key-value store by `migrateRedisToKv`.
 *
 * @example
 * ```ts
 * const storage = redisStorage({ url: process.env.REDIS_URL, prefix: 'gatehouse' });
 * await storage.ready();
 * const gatehouse = createGatehouse({ ...options, storage });
 * ```
 */
export function redisStorage(options: RedisStorageOptions): RedisStorage {
  const engine = redisEngine(options);
  return {
    ...engine.instance(DEFAULT_INSTANCE_ID),
    client: engine.client,
    ready: engine.ready,
    close: engine.close,
  };
}

function waitUntilReady(client: RedisClient, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const settle = (error?: Error) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      client.off('end', onEnd);
      if (error) reject(error);
      else resolve();
    };
    const onReady = () => settle();
    const onEnd = () => settle(new Error('redis connection closed before it was ready'));
    const timer = setTimeout(() => settle(new Error(`redis not ready after ${timeoutMs} ms`)), timeoutMs);
    client.once('ready', onReady);
    client.once('end', onEnd);
  });
}
