import { kvSessionStore } from '@gatehousejs/core/engine';
import { runStorageConformance } from '@gatehousejs/core/testing';
import {
  failFastOptions,
  type RedisEngine,
  type RedisStorage,
  redisEngine,
  redisStorage,
} from '@gatehousejs/redis';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { scaleOutSuite } from '../../core/test/scale-out/harness.js';
import { dropPrefix } from '../test/drop-prefix.js';

// The shared suites (contract conformance; two server processes and faults), run on real Redis.
const url = process.env.REDIS_URL;
if (!url)
  console.warn(
    '@gatehousejs/redis: REDIS_URL is not set; skipping the Redis conformance and scale-out suites.',
  );

async function open(prefix: string): Promise<RedisStorage> {
  const storage = redisStorage({ url: url!, prefix });
  await storage.ready();
  return storage;
}

describe.skipIf(!url)('redis engine', () => {
  const prefix = `gatehouse-test-${crypto.randomUUID()}`;
  const peers: RedisEngine[] = [];

  it('keeps its records on the Redis server, under its prefix', async () => {
    const storage = await open(prefix);
    const now = Date.now();
    await kvSessionStore(storage.kv).createSession({
      idHash: 'probe',
      userId: 'u',
      createdAt: now,
      lastSeenAt: now,
      expiresAt: now + 60_000,
    });
    expect(await storage.client.exists(`${prefix}:{7:default:kv:session:probe}`)).toBe(1);
    await dropPrefix(storage, prefix);
    await storage.close();
  });

  runStorageConformance(
    {
      name: 'redis',
      async create() {
        const engine = redisEngine({ url: url!, prefix });
        await engine.ready();
        return engine;
      },
      async cleanup(engine) {
        await dropPrefix(engine as RedisEngine, prefix);
        await (engine as RedisEngine).close();
        for (const peer of peers) {
          await peer.close();
          peer.client.disconnect();
        }
      },
      // Another process: its own client (named, so that its subscriber can be found and cut).
      async peer() {
        const client = new Redis(url!, {
          ...failFastOptions(),
          connectionName: `peer-${crypto.randomUUID()}`,
        });
        const peer = redisEngine({ client, prefix });
        await peer.ready();
        peers.push(peer);
        return peer;
      },
      // CLIENT KILL of the peer's subscriber connection: the server drops it, ioredis reconnects.
      async cutChannel(peer) {
        const { client } = peer as RedisEngine;
        const name = (client as Redis).options.connectionName!;
        const list = (await client.client('LIST')) as string;
        for (const line of list.split('\n')) {
          if (line.includes(` name=${name} `) && / sub=[1-9]/.test(line)) {
            await client.client('KILL', 'ID', line.match(/^id=(\d+)/)![1]!);
          }
        }
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
