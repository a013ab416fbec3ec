import { kvSessionStore } from '@gatehousejs/core/engine';
import { runStorageConformance } from '@gatehousejs/core/testing';
import {
  failFastPoolConfig,
  migrate,
  type PostgresEngine,
  type PostgresStorage,
  postgresEngine,
  postgresStorage,
} from '@gatehousejs/postgres';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { scaleOutSuite } from '../../core/test/scale-out/harness.js';

// The shared suites (contract conformance; two server processes and faults), run on real PostgreSQL.
const url = process.env.DATABASE_URL;
if (!url) {
  console.warn(
    '@gatehousejs/postgres: DATABASE_URL is not set; skipping the PostgreSQL conformance and scale-out suites.',
  );
}

async function open(schema: string): Promise<PostgresStorage> {
  const storage = postgresStorage({ connectionString: url!, schema, sweepIntervalMs: 0 });
  await migrate(storage.pool, { schema });
  return storage;
}

async function openEngine(schema: string): Promise<PostgresEngine> {
  const engine = postgresEngine({ connectionString: url!, schema, sweepIntervalMs: 0 });
  await migrate(engine.pool, { schema });
  return engine;
}

async function drop(storage: PostgresStorage | PostgresEngine, schema: string): Promise<void> {
  await storage.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await storage.close();
}

describe.skipIf(!url)('postgres engine', () => {
  const schema = `gatehouse_test_${crypto.randomUUID().replaceAll('-', '')}`;
  const peers: { close(): Promise<void> }[] = [];
  const names = new Map<object, string>();

  it('keeps its records in the database, in its schema', async () => {
    const storage = await open(`${schema}_probe`);
    const now = Date.now();
    await kvSessionStore(storage.kv).createSession({
      idHash: 'probe',
      userId: 'u',
      createdAt: now,
      lastSeenAt: now,
      expiresAt: now + 60_000,
    });
    const { rows } = await storage.pool.query(
      `SELECT expires_at FROM "${schema}_probe".key_values WHERE key = 'session:probe'`,
    );
    expect(rows).toEqual([{ expires_at: String(now + 60_000) }]);
    await drop(storage, `${schema}_probe`);
  });

  runStorageConformance(
    {
      name: 'postgres',
      create: () => openEngine(schema),
      async cleanup(engine) {
        for (const peer of peers) await peer.close();
        await drop(engine as PostgresEngine, schema);
      },
      // Another process: its own pool, named so that its listening connection can be found and cut.
      async peer() {
        const name = `peer-${crypto.randomUUID()}`;
        const pool = new pg.Pool({ ...failFastPoolConfig(url!), application_name: name });
        pool.on('error', () => {});
        const peer = postgresEngine({ pool, schema, sweepIntervalMs: 0 });
        peers.push({
          async close() {
            await peer.close();
            await pool.end();
          },
        });
        names.set(peer, name);
        return peer;
      },
      // pg_terminate_backend of the peer's LISTEN connection: the server drops it, the engine reconnects.
      async cutChannel(peer) {
        const { pool } = peer as PostgresEngine;
        await pool.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE application_name = $1 AND query LIKE 'LISTEN%'`,
          [names.get(peer)],
        );
      },
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
