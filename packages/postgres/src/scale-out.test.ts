import { postgresStorage } from '@gatehouse/postgres';
import { describe } from 'vitest';
import { scaleOutSuite } from '../../core/test/scale-out/harness.js';

const url = process.env.DATABASE_URL;
if (!url)
  console.warn('@gatehouse/postgres: DATABASE_URL is not set; skipping the multi-process and fault tests.');

describe.skipIf(!url)('postgres engine at scale', () => {
  scaleOutSuite({
    store: 'postgres',
    url: url!,
    async open(schema) {
      // The server processes ran the migrations.
      const storage = postgresStorage({ connectionString: url!, schema, sweepIntervalMs: 0 });
      return {
        storage,
        async drop() {
          await storage.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
          await storage.close();
        },
      };
    },
  });
});
