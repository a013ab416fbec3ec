import type { RedisClient } from '@gatehousejs/redis';

/**
 * Test cleanup: deletes every key below `prefix`, v2 (`prefix:{…}`) and round 1 (`{prefix}:…`)
 * alike. SCAN is fine here, never on a request path.
 */
export async function dropPrefix({ client }: { client: RedisClient }, prefix: string): Promise<void> {
  for (const pattern of [`{${prefix}}:*`, `${prefix}:*`]) {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      if (keys.length > 0) await client.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  }
}
