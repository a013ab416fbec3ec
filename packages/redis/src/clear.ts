import type { Cluster } from 'ioredis';
import type { RedisClient } from './script.js';

/**
 * Deletes every key matching `pattern` (one instance's, see keys.ts): SCAN, never KEYS, so the
 * server keeps answering others meanwhile; on a Cluster, on every master. Keys are unlinked one
 * command each, since they hash to many slots.
 */
export async function clearInstance(client: RedisClient, pattern: string): Promise<void> {
  for (const node of nodesOf(client)) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      await Promise.all(keys.map((key) => client.unlink(key)));
      cursor = next;
    } while (cursor !== '0');
  }
}

/** The nodes holding keys: a Cluster's masters, or the one server. */
export function nodesOf(client: RedisClient): RedisClient[] {
  return isCluster(client) ? client.nodes('master') : [client];
}

/** Whether `client` is an ioredis `Cluster` (else a single server's client, Sentinel or not). */
export function isCluster(client: RedisClient): client is Cluster {
  return (client as Cluster).isCluster === true;
}
