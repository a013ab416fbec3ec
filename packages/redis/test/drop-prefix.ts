import type { RedisClient } from '@gatehousejs/redis';
import { nodesOf } from '../src/clear.js';

/**
 * Test cleanup: deletes every key below `prefix`, v2 (`prefix:{…}`) and round 1 (`{prefix}:…`)
 * alike, on every master of a Cluster. SCAN is fine here, never on a request path. Keys are
 * deleted one command each: on a Cluster they hash to many slots.
 */
export async function dropPrefix({ client }: { client: RedisClient }, prefix: string): Promise<void> {
  for (const node of nodesOf(client)) {
    for (const pattern of [`{${prefix}}:*`, `${prefix}:*`]) {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
        await Promise.all(keys.map((key) => client.del(key)));
        cursor = next;
      } while (cursor !== '0');
    }
  }
}
