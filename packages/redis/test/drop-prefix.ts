import type { RedisStorage } from '@gatehouse/redis';

/** Test cleanup: deletes every key of `prefix`. SCAN is fine here, never on a request path. */
export async function dropPrefix({ client }: RedisStorage, prefix: string): Promise<void> {
  for (const pattern of [`{${prefix}}:*`, `${prefix}:*`]) {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      if (keys.length > 0) await client.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  }
}
