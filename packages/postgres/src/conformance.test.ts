import { runStorageConformance } from '@gatehouse/core/testing';
import { migrate, type PostgresStorage, postgresStorage } from '@gatehouse/postgres';
import { afterAll, describe, expect, it } from 'vitest';

const url = process.env.DATABASE_URL;
if (!url)
  console.warn('@gatehouse/postgres: DATABASE_URL is not set; skipping the PostgreSQL conformance suite.');

describe.skipIf(!url)('postgres engine', () => {
  const schema = `gatehouse_test_${crypto.randomUUID().replaceAll('-', '')}`;
  runStorageConformance(
    {
      name: 'postgres',
      async create() {
        const storage = postgresStorage({ connectionString: url!, schema, sweepIntervalMs: 0 });
        await migrate(storage.pool, { schema });
        return storage;
      },
      async cleanup(storage) {
        const { pool, close } = storage as PostgresStorage;
        await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
        await close();
      },
    },
    { describe, it, expect, afterAll },
  );
});
