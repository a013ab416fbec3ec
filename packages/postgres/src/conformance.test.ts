import { runStorageConformance } from '@gatehouse/core/testing';
import { migrate, type PostgresStorage, postgresStorage } from '@gatehouse/postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { scaleOutSuite } from '../../core/test/scale-out/harness.js';

// The shared suites (contract conformance; two server processes and faults), run on real PostgreSQL.
const url = process.env.DATABASE_URL;
if (!url) {
  console.warn(
    '@gatehouse/postgres: DATABASE_URL is not set; skipping the PostgreSQL conformance and scale-out suites.',
  );
}

async function open(schema: string): Promise<PostgresStorage> {
  const storage = postgresStorage({ connectionString: url!, schema, sweepIntervalMs: 0 });
  await migrate(storage.pool, { schema });
  return storage;
}

async function drop(storage: PostgresStorage, schema: string): Promise<void> {
  await storage.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await storage.close();
}

describe.skipIf(!url)('postgres engine', () => {
  const schema = `gatehouse_test_${crypto.randomUUID().replaceAll('-', '')}`;

  it('keeps its records in the database, in its schema', async () => {
    const storage = await open(`${schema}_probe`);
    const now = Date.now();
    await storage.sessions.createSession({
      idHash: 'probe',
      userId: 'u',
      createdAt: now,
      lastSeenAt: now,
      expiresAt: now + 60_000,
    });
    const { rows } = await storage.pool.query(
      `SELECT user_id FROM "${schema}_probe".sessions WHERE id_hash = 'probe'`,
    );
    expect(rows).toEqual([{ user_id: 'u' }]);
    await drop(storage, `${schema}_probe`);
  });

  runStorageConformance(
    {
      name: 'postgres',
      create: () => open(schema),
      cleanup: (storage) => drop(storage as PostgresStorage, schema),
    },
    { describe, it, expect, afterAll },
  );

  scaleOutSuite({
    store: 'postgres',
    url: url!,
    async open(namespace) {
      // The server processes ran the migrations.
      const storage = postgresStorage({ connectionString: url!, schema: namespace, sweepIntervalMs: 0 });
      return { storage, drop: () => drop(storage, namespace) };
    },
  });
});
