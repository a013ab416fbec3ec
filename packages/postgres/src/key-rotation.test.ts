import { migrate, type PostgresEngine, postgresEngine } from '@gatehousejs/postgres';
import { describe, expect, it } from 'vitest';
import { rotateUnderLoad } from '../../core/test/key-rotation-under-load.js';

// Stored key rotation (`keyRotation`) on real PostgreSQL: two processes, each with its own pool.
const url = process.env.DATABASE_URL;
if (!url)
  console.warn('@gatehousejs/postgres: DATABASE_URL is not set; skipping the key rotation under load test.');

describe.skipIf(!url)('stored key rotation on PostgreSQL', () => {
  it('rotates under load on two processes with zero verification failures', async () => {
    const schema = `gatehouse_test_${crypto.randomUUID().replaceAll('-', '')}`;
    const open = () => postgresEngine({ connectionString: url!, schema, sweepIntervalMs: 0 });
    const engines: PostgresEngine[] = [open(), open()];
    try {
      await migrate(engines[0]!.pool, { schema });
      const run = await rotateUnderLoad([engines[0]!, engines[1]!], 4);
      expect(run.failures).toEqual([]);
      expect(run.signingKids.length).toBeGreaterThanOrEqual(5);
      expect(run.verified).toBeGreaterThan(run.issued);
      console.info(
        `postgres: ${run.issued} issued, ${run.verified} verified, ${run.signingKids.length - 1} rotations, 0 failures`,
      );
    } finally {
      await engines[0]!.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      for (const engine of engines) await engine.close();
    }
  }, 90_000);
});
