import type { GatehouseStorage } from '@gatehouse/core';
import { Redis } from 'ioredis';
import { redisGrantStore } from './grant-store.js';
import { keyLayout } from './keys.js';
import type { RedisClient } from './script.js';
import { redisConsentStore, redisRateLimitStore, redisSessionStore } from './session-stores.js';

/** Options of {@link redisStorage}: give a `client`, or a `url` to let the engine make one. */
export interface RedisStorageOptions {
  /**
   * Your own ioredis client (`Redis` or `Cluster`). It is used as configured; give it bounded
   * timeouts (see {@link failFastOptions}) so an unreachable server fails requests fast, and it is
   * yours to close.
   */
  readonly client?: RedisClient;
  /** `redis://…` / `rediss://…`: the engine creates (and {@link RedisStorage.close}s) a client. */
  readonly url?: string;
  /**
   * Namespace of every key, so several instances (issuers) or test runs share one server. Default
   * `gatehouse`. No braces: the engine adds the Cluster hash tag itself.
   */
  readonly prefix?: string;
  /** Bound on each command of a client made from `url`, in ms. Default 2000. */
  readonly commandTimeoutMs?: number;
}

/** The four stores, plus the client and lifecycle helpers. */
export interface RedisStorage extends GatehouseStorage {
  readonly client: RedisClient;
  /**
   * Resolves once the client is connected (commands fail fast before that); rejects if that takes
   * longer than `timeoutMs` (default 10000), so a host can refuse to start without Redis.
   */
  ready(timeoutMs?: number): Promise<void>;
  /** Closes the client if the engine created it (from `url`); leaves a given `client` open. */
  close(): Promise<void>;
}

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
 * Gatehouse storage on Redis (≥ 6.2): grants, sessions, consents and rate limits. Atomic steps are
 * Lua scripts or MULTI/EXEC, expiry is enforced by Redis (`PEXPIREAT` at each record's `expiresAt`,
 * so the instance clock must be the wall clock), and no hot path scans keys.
 *
 * @example
 * ```ts
 * const storage = redisStorage({ url: process.env.REDIS_URL, prefix: 'gatehouse' });
 * await storage.ready();
 * const gatehouse = createGatehouse({ ...options, storage });
 * ```
 */
export function redisStorage(options: RedisStorageOptions): RedisStorage {
  if (!options.client && !options.url) throw new TypeError('redisStorage: give `client` or `url`.');
  const keys = keyLayout(options.prefix ?? 'gatehouse');
  const owned = options.client === undefined;
  const client = options.client ?? new Redis(options.url!, failFastOptions(options.commandTimeoutMs));
  // Connection errors surface as failed commands (503); without a listener ioredis would also print them.
  if (owned) client.on('error', () => {});

  return {
    client,
    grants: redisGrantStore(client, keys),
    sessions: redisSessionStore(client, keys),
    consents: redisConsentStore(client, keys),
    rateLimits: redisRateLimitStore(client, keys),
    ready: (timeoutMs = 10_000) => waitUntilReady(client, timeoutMs),
    async close() {
      if (owned) await client.quit().catch(() => client.disconnect());
    },
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
