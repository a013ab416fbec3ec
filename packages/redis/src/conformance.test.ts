import { runStorageConformance } from '@gatehouse/core/testing';
import { type RedisStorage, redisStorage } from '@gatehouse/redis';
import { afterAll, describe, expect, it } from 'vitest';
import { dropPrefix } from '../test/drop-prefix.js';

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
