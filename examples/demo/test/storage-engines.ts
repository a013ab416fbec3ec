/**
 * The storage engines a test runs on: memory always, Redis and PostgreSQL when REDIS_URL /
 * DATABASE_URL are set. Every storage made is in a namespace (key prefix, schema) of its own, so
 * that nothing leaks between tests; `cleanUp` (for `afterAll`) deletes them all.
 */
import { type GatehouseStorage, memoryStorage } from '@gatehousejs/core';
import { migrate, postgresStorage } from '@gatehousejs/postgres';
import { redisStorage } from '@gatehousejs/redis';

export function storageEngines(prefix: string): {
  readonly engines: [string, () => Promise<GatehouseStorage>][];
  cleanUp(): Promise<void>;
} {
  const freshNamespace = () => `${prefix}_${crypto.randomUUID().replaceAll('-', '')}`;
  const cleanups: (() => Promise<void>)[] = [];
  const engines: [string, () => Promise<GatehouseStorage>][] = [['memory', async () => memoryStorage()]];
  const redisUrl = process.env.REDIS_URL;
  if (redisUrl) {
    engines.push([
      'redis',
      async () => {
        const namespace = freshNamespace();
        const storage = redisStorage({ url: redisUrl, prefix: namespace });
        await storage.ready();
        cleanups.push(async () => {
          const keys = [
            ...(await storage.client.keys(`{${namespace}}:*`)),
            ...(await storage.client.keys(`${namespace}:*`)),
          ];
          if (keys.length > 0) await storage.client.del(...keys);
          await storage.close();
        });
        return storage;
      },
    ]);
  }
  const databaseUrl = process.env.DATABASE_URL;
  if (databaseUrl) {
    engines.push([
      'postgres',
      async () => {
        const namespace = freshNamespace();
        const storage = postgresStorage({
          connectionString: databaseUrl,
          schema: namespace,
          sweepIntervalMs: 0,
        });
        await migrate(storage.pool, { schema: namespace });
        cleanups.push(async () => {
          await storage.pool.query(`DROP SCHEMA IF EXISTS "${namespace}" CASCADE`);
          await storage.close();
        });
        return storage;
      },
    ]);
  }
  return {
    engines,
    async cleanUp() {
      for (const cleanup of cleanups) await cleanup();
    },
  };
}
