import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';

/** A client this package can talk to: a single node (with or without Sentinel) or a Cluster. */
export type RedisClient = Redis | Cluster;

/**
 * A Lua script run with `EVALSHA`, falling back to `EVAL` (which also caches it) when the server does
 * not know it yet (after a restart or failover). Redis runs a script as one atomic step.
 */
export class LuaScript {
  readonly #source: string;
  readonly #sha: string;

  constructor(source: string) {
    this.#source = source;
    this.#sha = createHash('sha1').update(source).digest('hex');
  }

  async run(
    client: RedisClient,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<unknown> {
    try {
      return await client.evalsha(this.#sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return client.eval(this.#source, keys.length, ...keys, ...args);
    }
  }
}
