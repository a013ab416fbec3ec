import { runStorageConformance } from '@gatehouse/core/testing';
import { type RedisStorage, redisStorage } from '@gatehouse/redis';
import { afterAll, describe, expect, it } from 'vitest';
import { scaleOutSuite } from '../../core/test/scale-out/harness.js';
import { dropPrefix } from '../test/drop-prefix.js';

// The shared suites (contract conformance; two server processes and faults), run on real Redis.
const url = process.env.REDIS_URL;
if (!url)
  console.warn(
    '@gatehouse/redis: REDIS_URL is not set; skipping the Redis conformance and scale-out suites.',
  );

async function open(prefix: string): Promise<RedisStorage> {
  const storage = redisStorage({ url: url!, prefix });
  await storage.ready();
  return storage;
}

describe.skipIf(!url)('redis engine', () => {
  const prefix = `gatehouse-test-${crypto.randomUUID()}`;

  it('keeps its records on the Redis server, under its prefix', async () => {
    const storage = await open(prefix);
    const now = Date.now();
    await storage.sessions.createSession({
      idHash: 'probe',
      userId: 'u',
      createdAt: now,
      lastSeenAt: now,
      expiresAt: now + 60_000,
    });
    expect(await storage.client.exists(`${prefix}:session:probe`)).toBe(1);
    await dropPrefix(storage, prefix);
    await storage.close();
  });

  runStorageConformance(
    {
      name: 'redis',
      create: () => open(prefix),
      async cleanup(storage) {
        await dropPrefix(storage as RedisStorage, prefix);
        await (storage as RedisStorage).close();
      },
    },
    { describe, it, expect, afterAll },
  );

  scaleOutSuite({
    store: 'redis',
    url: url!,
    async open(namespace) {
      const storage = await open(namespace);
      return {
        storage,
        async drop() {
          await dropPrefix(storage, namespace);
          await storage.close();
        },
      };
    },
  });
});
