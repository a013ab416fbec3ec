import { runStorageConformance } from '@gatehouse/core/testing';
import { type RedisStorage, redisStorage } from '@gatehouse/redis';
import { afterAll, describe, expect, it } from 'vitest';

const url = process.env.REDIS_URL;
if (!url) console.warn('@gatehouse/redis: REDIS_URL is not set; skipping the Redis conformance suite.');

describe.skipIf(!url)('redis engine', () => {
  const prefix = `gatehouse-test-${crypto.randomUUID()}`;
  runStorageConformance(
    {
      name: 'redis',
      async create() {
        const storage = redisStorage({ url: url!, prefix });
        await storage.ready();
        return storage;
      },
      async cleanup(storage) {
        await dropPrefix(storage as RedisStorage, prefix);
        await (storage as RedisStorage).close();
      },
    },
    { describe, it, expect, afterAll },
  );
});

/** Test cleanup only: SCAN is fine here, never on a request path. */
async function dropPrefix({ client }: RedisStorage, prefix: string): Promise<void> {
  for (const pattern of [`{${prefix}}:*`, `${prefix}:*`]) {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      if (keys.length > 0) await client.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  }
}
