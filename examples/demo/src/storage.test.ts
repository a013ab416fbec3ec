import { storageFromEnv } from '@gatehousejs/demo';
import { postgresStorage } from '@gatehousejs/postgres';
import { describe, expect, it } from 'vitest';

describe('storageFromEnv', () => {
  it('gives every store in memory when GATEHOUSE_STORE is unset or memory', async () => {
    for (const env of [{}, { GATEHOUSE_STORE: 'memory' }]) {
      const storage = await storageFromEnv(env);
      expect(storage.engine).toBe('memory');
      for (const store of ['grants', 'clients', 'kv'] as const) expect(typeof storage[store]).toBe('object');
    }
  });

  it('names the missing URL variable of the chosen engine', async () => {
    await expect(storageFromEnv({ GATEHOUSE_STORE: 'redis' })).rejects.toThrow(
      'GATEHOUSE_STORE=redis needs REDIS_URL (or REDIS_CLUSTER_NODES, or REDIS_SENTINELS).',
    );
    await expect(storageFromEnv({ GATEHOUSE_STORE: 'postgres' })).rejects.toThrow(
      'GATEHOUSE_STORE=postgres needs DATABASE_URL.',
    );
  });

  it('refuses an unknown engine', async () => {
    await expect(storageFromEnv({ GATEHOUSE_STORE: 'mongo' })).rejects.toThrow(
      'GATEHOUSE_STORE must be memory, redis or postgres (got "mongo").',
    );
  });

  const redisUrl = process.env.REDIS_URL;
  it.skipIf(!redisUrl)('connects the Redis engine under the namespace', async () => {
    const namespace = `gatehouse-demo-test-${crypto.randomUUID()}`;
    const storage = await storageFromEnv({
      GATEHOUSE_STORE: 'redis',
      REDIS_URL: redisUrl,
      GATEHOUSE_STORE_NAMESPACE: namespace,
    });
    try {
      expect(storage.engine).toBe('redis');
      const now = Date.now();
      await storage.grants!.revokeAccessToken('jti-1', now + 1000);
      expect(await storage.grants!.isRevoked('jti-1', undefined, now)).toBe(true);
    } finally {
      await storage.close();
    }
  });

  const databaseUrl = process.env.DATABASE_URL;
  it.skipIf(!databaseUrl)('migrates and connects the PostgreSQL engine in the namespace schema', async () => {
    const namespace = `gatehouse_demo_test_${crypto.randomUUID().replaceAll('-', '')}`;
    const env = {
      GATEHOUSE_STORE: 'postgres',
      DATABASE_URL: databaseUrl,
      GATEHOUSE_STORE_NAMESPACE: namespace,
    };
    const storage = await storageFromEnv(env);
    // A second handle on the same schema, to look at the table and drop it afterwards.
    const { pool, close } = postgresStorage({
      connectionString: databaseUrl!,
      schema: namespace,
      sweepIntervalMs: 0,
    });
    try {
      expect(storage.engine).toBe('postgres');
      await storage.kv!.increment('k', 1, Date.now() + 1000, Date.now());
      const { rows } = await pool.query(`SELECT count(*)::int AS n FROM "${namespace}".key_values`);
      expect(rows).toEqual([{ n: 1 }]);
    } finally {
      await storage.close();
      await pool.query(`DROP SCHEMA IF EXISTS "${namespace}" CASCADE`);
      await close();
    }
  });
});
