import type { GatehouseStorage, StorageEngine } from '@gatehousejs/core';
import { checkInstanceId, DEFAULT_INSTANCE_ID } from '@gatehousejs/core/engine';
import { Redis } from 'ioredis';
import { clearInstance } from './clear.js';
import { redisGrantStore } from './grant-store.js';
import { redisKeyValueStore } from './key-value.js';
import { checkPrefix, keyLayout } from './keys.js';
import { redisClientRegistry } from './registry-stores.js';
import { revocationHub } from './revocation-channel.js';
import type { RedisClient } from './script.js';

/** Options of {@link redisEngine}: give a `client`, or a `url` to let the engine make one. */
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
   * Namespace of every key, for applications or test runs sharing one server (instances of one
   * application share it: their keys are apart by instance id). Default `gatehouse`. No braces: the
   * engine places the Cluster hash tags itself.
   */
  readonly prefix?: string;
  /** Bound on each command of a client made from `url`, in ms. Default 2000. */
  readonly commandTimeoutMs?: number;
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
   * Closes the client if the engine created it (from `url`); leaves a given `client` open. Always
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
  };
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
  if (!options.client && !options.url) throw new TypeError('redisEngine: give `client` or `url`.');
  const prefix = checkPrefix(options.prefix ?? 'gatehouse');
  const owned = options.client === undefined;
  const client = options.client ?? new Redis(options.url!, failFastOptions(options.commandTimeoutMs));
  // Connection errors surface as failed commands (503); without a listener ioredis would also print them.
  if (owned) client.on('error', () => {});
  const views = new Map<string, GatehouseStorage>();
  // Pushed revocations: one subscriber connection, opened when a Gatehouse instance first asks.
  const hub = revocationHub(client, prefix);

  return {
    client,
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
    ready: (timeoutMs = 10_000) => waitUntilReady(client, timeoutMs),
    async close() {
      await hub.close();
      if (owned) await client.quit().catch(() => client.disconnect());
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
