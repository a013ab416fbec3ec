import type { Redis } from 'ioredis';
import type { RedisClient } from './script.js';

/** Options of the engine's `waitForReplicas`: a write counts once this many replicas have it (Redis `WAIT`). */
export interface WaitForReplicasOptions {
  /** Replicas that must have a write before it counts as done. */
  readonly replicas: number;
  /** How long a write waits for them, in ms. Default 500; below the command timeout. */
  readonly timeoutMs?: number;
}

/** The client commands that write (scripts included: most write, and a read-only one waits for nothing). */
const WRITES = new Set(['evalsha', 'eval', 'set', 'del', 'unlink', 'zadd', 'zrem', 'hset', 'pexpireat']);

/**
 * `client`, whose writes resolve only once `replicas` replicas acknowledged them: Redis's `WAIT`,
 * sent right behind each write on the same connection (so in the same write to the socket, no
 * round trip of its own), resolving to the replicas that have every write of that connection so
 * far. Fewer within `timeoutMs`, and the write's promise rejects: Gatehouse answers 503, and the
 * write, done on the primary, may or may not survive a failover, like one whose reply was lost.
 * Redis replicates asynchronously: without this, a write the primary acknowledged just before it
 * died, or while a failover had already promoted its replica, is lost. A single server only
 * (standalone or Sentinel): on a Cluster `WAIT` would have to follow each key to its node.
 *
 * The server runs one connection's commands in order and holds the connection's later commands
 * while `WAIT` waits, so while replicas lag every request on the connection waits with them. Give
 * the primary `min-replicas-to-write` (with `min-replicas-max-lag`) so that without a replica it
 * refuses writes at once instead of every write waiting `timeoutMs`.
 */
export function waitingForReplicas(client: RedisClient, options: WaitForReplicasOptions): RedisClient {
  checkWaitForReplicas(options, client.isCluster);
  const { replicas } = options;
  const timeoutMs = options.timeoutMs ?? 500;
  const server = client as Redis;

  /** Waits for `write` and the replicas' acknowledgement of it, sent right behind it. */
  const acknowledged = async <T>(write: Promise<T>): Promise<T> => {
    const waited = server.call('WAIT', replicas, timeoutMs) as Promise<number>;
    const [result, count] = await Promise.all([write, waited]);
    if (count < replicas)
      throw new Error(
        `redis: a write reached ${count} of the ${replicas} replicas required within ${timeoutMs} ms`,
      );
    return result;
  };

  return new Proxy(server, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      if (property === 'multi')
        return (...args: unknown[]) => {
          const transaction = value.apply(target, args);
          const exec = transaction.exec.bind(transaction);
          transaction.exec = () => acknowledged(exec());
          return transaction;
        };
      if (typeof property === 'string' && WRITES.has(property))
        return (...args: unknown[]) => acknowledged(value.apply(target, args));
      return value.bind(target);
    },
  });
}

/** Checks `waitForReplicas` before a client is made: whole numbers, and not on a Cluster. */
export function checkWaitForReplicas(options: WaitForReplicasOptions, cluster: boolean): void {
  const { replicas, timeoutMs = 500 } = options;
  if (!Number.isInteger(replicas) || replicas < 1 || !Number.isInteger(timeoutMs) || timeoutMs < 1)
    throw new TypeError('redisEngine: `waitForReplicas` needs whole `replicas` ≥ 1 and `timeoutMs` ≥ 1.');
  if (cluster) throw new TypeError('redisEngine: `waitForReplicas` is for a single server, not a Cluster.');
}
