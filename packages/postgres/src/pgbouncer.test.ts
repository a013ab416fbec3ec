/**
 * The engine behind PgBouncer in transaction pooling mode (Debian's PgBouncer, started by the test
 * in front of DATABASE_URL's server), where each statement may run on another server connection:
 * the storage conformance kit passes through it with the engine's defaults (named prepared
 * statements on: what PgBouncer before 1.21 loses, the engine sends again unnamed); `LISTEN` does
 * not hold through it, so pushed revocations need a direct connection (`listenConnectionString`);
 * migrations run from several clients at once on an empty database apply each version once.
 */
import { runStorageConformance } from '@gatehousejs/core/testing';
import { failFastPoolConfig, migrate, type PostgresEngine, postgresEngine } from '@gatehousejs/postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PgBouncer,
  pgbouncerProblem,
  pgbouncerVersion,
  startPgBouncer,
} from '../../../tests/support/engines/pgbouncer.js';

const url = process.env.DATABASE_URL;
const problem = url ? pgbouncerProblem() : 'DATABASE_URL is not set';
if (problem && url && process.env.GATEHOUSE_FAULTS_REQUIRED === '1')
  throw new Error(`@gatehousejs/postgres: the PgBouncer tests cannot run: ${problem}.`);
if (problem) console.warn(`@gatehousejs/postgres: the PgBouncer tests are skipped: ${problem}.`);

describe.skipIf(problem)('postgres engine behind PgBouncer in transaction mode', () => {
  const direct = new URL(url ?? 'postgres://localhost/x');
  const database = direct.pathname.slice(1);
  const schema = `gatehouse_test_${crypto.randomUUID().replaceAll('-', '')}`;
  let bouncer: PgBouncer;
  const opened: { close(): Promise<void> }[] = [];
  const names = new Map<object, string>();

  /** A URL of the direct server with `application_name`, so that a test can find its connections. */
  const directUrl = (name: string) => {
    const named = new URL(url!);
    named.searchParams.set('application_name', name);
    return named.href;
  };

  /** An engine whose pool goes through PgBouncer and whose `LISTEN` goes to PostgreSQL directly. */
  const open = (listenName = `listen-${crypto.randomUUID()}`) => {
    const engine = postgresEngine({
      connectionString: bouncer.url(database),
      listenConnectionString: directUrl(listenName),
      schema,
      sweepIntervalMs: 0,
    });
    opened.push(engine);
    names.set(engine, listenName);
    return engine;
  };

  beforeAll(async () => {
    bouncer = await startPgBouncer({
      upstream: { host: direct.hostname, port: Number(direct.port || 5432) },
    });
    console.info(`PgBouncer ${pgbouncerVersion()} in transaction mode on port ${bouncer.port}`);
  }, 30_000);
  afterAll(async () => {
    for (const engine of opened) await engine.close();
    const pool = new pg.Pool({ connectionString: url });
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
    await bouncer?.stop();
  });

  runStorageConformance(
    {
      name: 'postgres through PgBouncer (transaction mode)',
      async create() {
        const engine = open();
        await migrate(engine.pool, { schema });
        return engine;
      },
      peer: async () => open(),
      // The peer's LISTEN connection is direct: terminate it there; the engine reconnects by itself.
      async cutChannel(peer) {
        const pool = new pg.Pool({ connectionString: url });
        await pool.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
          [names.get(peer)],
        );
        await pool.end();
      },
    },
    { describe, it, expect, afterAll },
  );

  /** Subscribes to an instance's revocations and says whether a probe comes back within `ms`. */
  const probeComesBack = async (engine: PostgresEngine, ms: number) => {
    const grants = engine.instance(`probe-${crypto.randomUUID()}`).grants;
    let connected!: () => void;
    const ready = new Promise<void>((resolve) => {
      connected = resolve;
    });
    const echoes = new Set<string>();
    const subscription = grants.watchRevocations!({
      connected,
      revoked() {},
      echoed: (id) => echoes.add(id),
      lost() {},
    });
    try {
      await ready;
      const id = crypto.randomUUID();
      await subscription.probe(id);
      const deadline = Date.now() + ms;
      while (!echoes.has(id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      return echoes.has(id);
    } finally {
      subscription.unsubscribe();
    }
  };

  it('delivers no notification to a LISTEN sent through PgBouncer, and does with a direct listening connection', async () => {
    await migrate(new pg.Pool({ connectionString: url }), { schema });
    // Everything through the pooler: LISTEN runs on a server connection PgBouncer hands to the next
    // transaction, so nothing comes back to the listening client. The mirror then never trusts
    // itself and every bearer check asks the engine (correct, one round trip each).
    const pooled = postgresEngine({ connectionString: bouncer.url(database), schema, sweepIntervalMs: 0 });
    opened.push(pooled);
    expect(await probeComesBack(pooled, 1500)).toBe(false);
    // `listenConnectionString` to PostgreSQL itself: the probe comes back (pushed revocations work).
    expect(await probeComesBack(open(), 5000)).toBe(true);
  });

  it('runs the migrations once when several clients start them at once on an empty database, directly and through PgBouncer', async () => {
    const admin = new pg.Pool({ connectionString: url });
    const fresh = `gatehouse_migrate_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`;
    await admin.query(`CREATE DATABASE ${fresh}`);
    const freshUrl = new URL(url!);
    freshUrl.pathname = `/${fresh}`;
    // Six clients, each its own pool (its own sessions, as six processes would have), half of them
    // through PgBouncer, all at once: one takes the advisory lock and migrates, the others wait and
    // find nothing left to do.
    const pools = Array.from({ length: 6 }, (_, index) => {
      const pool = new pg.Pool(
        failFastPoolConfig(index % 2 === 0 ? freshUrl.href : bouncer.url(fresh), 30_000),
      );
      pool.on('error', () => {});
      return pool;
    });
    try {
      const applied = await Promise.all(pools.map((pool) => migrate(pool)));
      const all = applied.flat();
      expect(new Set(all).size).toBe(all.length); // no version applied twice
      const { rows } = await pools[0]!.query<{ version: string }>(
        'SELECT version FROM gatehouse.schema_migrations ORDER BY version',
      );
      expect(rows.map((row) => row.version)).toEqual([...all].sort());
      // The schema is the one a single migration makes (here: the test schema, migrated alone).
      const columns = (pool: pg.Pool, name: string) =>
        pool
          .query<{ column: string }>(
            `SELECT table_name || '.' || column_name || ' ' || data_type AS column
               FROM information_schema.columns WHERE table_schema = $1 ORDER BY 1`,
            [name],
          )
          .then((result) => result.rows.map((row) => row.column));
      expect(await columns(pools[0]!, 'gatehouse')).toEqual(await columns(admin, schema));
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
      await admin.query(`DROP DATABASE IF EXISTS ${fresh} WITH (FORCE)`);
      await admin.end();
    }
  });
});
