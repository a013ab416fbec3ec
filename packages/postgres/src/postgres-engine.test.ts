import { createServer } from 'node:net';
import { hashSecret, kvSessionStore } from '@gatehousejs/core/engine';
import { migrate, type PostgresStorage, postgresStorage } from '@gatehousejs/postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAssertionAcceptedOnce } from '../../core/test/assertion-replay.js';
import { failPasswordAttempts } from '../../core/test/password-attempts.js';
import { expectRegistrationsShared } from '../../core/test/registration-across-processes.js';
import { expectUnstorableInputRefused } from '../../core/test/unstorable-input.js';

const url = process.env.DATABASE_URL;
if (!url)
  console.warn('@gatehousejs/postgres: DATABASE_URL is not set; skipping the PostgreSQL engine tests.');

describe.skipIf(!url)('postgres engine specifics', () => {
  const schema = `gatehouse_test_${crypto.randomUUID().replaceAll('-', '')}`;
  let storage: PostgresStorage;
  beforeAll(() => {
    storage = postgresStorage({ connectionString: url!, schema, sweepIntervalMs: 0 });
  });
  afterAll(async () => {
    await storage.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await storage.close();
  });

  it('migrates once, even when several processes start together', async () => {
    const runs = await Promise.all([1, 2, 3].map(() => migrate(storage.pool, { schema })));
    expect(runs.flat()).toEqual([
      '001_init',
      '002_revoked_subjects',
      '003_storage_v2',
      '004_user_grants',
      '005_key_values',
      '006_kv_state',
      '007_client_partitions',
      '008_hot_rotation',
    ]);
    expect(await migrate(storage.pool, { schema })).toEqual([]);
    const { rows } = await storage.pool.query(
      'SELECT version FROM "' + schema + '".schema_migrations ORDER BY version',
    );
    expect(rows).toEqual([
      { version: '001_init' },
      { version: '002_revoked_subjects' },
      { version: '003_storage_v2' },
      { version: '004_user_grants' },
      { version: '005_key_values' },
      { version: '006_kv_state' },
      { version: '007_client_partitions' },
      { version: '008_hot_rotation' },
    ]);
  });

  it('exchanges a code and then its refresh token in one statement each, refusals and reuse included', async () => {
    // A schema of its own: the consumed code stays (for replays), which the sweep case does not expect.
    const own = `gatehouse_test_${crypto.randomUUID().replaceAll('-', '')}`;
    const pool = new pg.Pool({ connectionString: url!, max: 2 });
    await migrate(pool, { schema: own });
    const texts: string[] = [];
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    (pool as unknown as { query: unknown }).query = (...args: unknown[]) => {
      texts.push(typeof args[0] === 'string' ? args[0] : (args[0] as { text: string }).text);
      return query(...args);
    };
    const counted = postgresStorage({ pool, schema: own, sweepIntervalMs: 0 });
    const statements = async <T>(call: () => Promise<T>) => {
      texts.length = 0;
      const result = await call();
      return { result, statements: texts.length };
    };
    try {
      const now = Date.now();
      const code = {
        codeHash: await hashSecret(crypto.randomUUID()),
        clientId: 'c',
        userId: crypto.randomUUID(),
        grantId: crypto.randomUUID(),
        redirectUri: 'https://app.example/cb',
        scope: 'read offline_access openid',
        authTime: now,
        expiresAt: now + 60_000,
        ext: { dpopJkt: 'k', kept: [1, { a: [] }] },
      };
      await counted.grants.saveCode(code);
      const issued = { tokenHash: await hashSecret(crypto.randomUUID()), expiresAt: now + 3_600_000 };
      const exchange = {
        clientId: 'c',
        redirectUri: code.redirectUri,
        redirectUriFitsDefault: false,
        dpopJkt: 'k',
        keepUntil: now + 600_000,
        refreshToken: issued,
      };
      expect(
        await statements(() =>
          counted.grants.exchangeCode!(code.codeHash, { ...exchange, clientId: 'x' }, now),
        ),
      ).toEqual({ result: { status: 'refused', reason: 'client' }, statements: 1 });
      const redeemed = await statements(() => counted.grants.exchangeCode!(code.codeHash, exchange, now));
      expect(redeemed.statements).toBe(1);
      expect(redeemed.result.status === 'redeemed' && redeemed.result.refreshTokenStored).toBe(true);
      expect(
        (await statements(() => counted.grants.exchangeCode!(code.codeHash, exchange, now))).result.status,
      ).toBe('replayed');
      expect(await counted.grants.findRefreshToken(issued.tokenHash, now)).toEqual({
        tokenHash: issued.tokenHash,
        grantId: code.grantId,
        clientId: 'c',
        subject: { kind: 'user', userId: code.userId },
        scope: code.scope,
        authTime: now,
        grantedAt: now,
        issuedAt: now,
        expiresAt: issued.expiresAt,
        ext: { kept: [1, { a: [] }] },
      });
      const next = {
        tokenHash: await hashSecret(crypto.randomUUID()),
        expiresAt: now + 7_200_000,
        dpopJkt: 'k2',
      };
      const rotated = await statements(() =>
        counted.grants.exchangeRefreshToken!(
          issued.tokenHash,
          { clientId: 'c', dpopJkt: 'k2', next },
          now + 1,
        ),
      );
      expect(rotated.statements).toBe(1);
      expect(rotated.result.status).toBe('rotated');
      expect((await counted.grants.findRefreshToken(next.tokenHash, now + 1))?.ext).toEqual({
        kept: [1, { a: [] }],
        dpopJkt: 'k2',
      });
      const reused = await statements(() =>
        counted.grants.exchangeRefreshToken!(
          issued.tokenHash,
          { clientId: 'c', dpopJkt: 'k2', next },
          now + 2,
        ),
      );
      expect(reused.statements).toBe(1);
      expect(reused.result.status).toBe('reused');
      expect(
        await statements(() =>
          counted.grants.exchangeRefreshToken!(
            next.tokenHash,
            { clientId: 'c', dpopJkt: 'k', next: issued },
            now + 2,
          ),
        ),
      ).toEqual({ result: { status: 'refused', reason: 'dpop_key' }, statements: 1 });
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS "${own}" CASCADE`);
      await counted.close();
      await pool.end();
    }
  });

  it('rotates with a heap-only update: no index names the column a rotation writes', async () => {
    const own = `gatehouse_test_${crypto.randomUUID().replaceAll('-', '')}`;
    const pool = new pg.Pool({ connectionString: url!, max: 1 });
    await migrate(pool, { schema: own });
    const engine = postgresStorage({ pool, schema: own, sweepIntervalMs: 0 });
    const updates = async () =>
      (
        await pool.query<{ upd: string; hot: string }>(
          `SELECT n_tup_upd AS upd, n_tup_hot_upd AS hot FROM pg_stat_user_tables
           WHERE schemaname = $1 AND relname = 'refresh_tokens'`,
          [own],
        )
      ).rows[0]!;
    try {
      const now = Date.now();
      const hashes = await Promise.all(Array.from({ length: 21 }, (_, i) => hashSecret(`${own}-${i}`)));
      await engine.grants.saveRefreshToken({
        tokenHash: hashes[0]!,
        grantId: 'g',
        clientId: 'c',
        subject: { kind: 'user', userId: 'u' },
        scope: 'read',
        issuedAt: now,
        expiresAt: now + 3_600_000,
      });
      for (let i = 0; i < 20; i++) {
        const next = { tokenHash: hashes[i + 1]!, expiresAt: now + 3_600_000 };
        const result = await engine.grants.exchangeRefreshToken!(
          hashes[i]!,
          { clientId: 'c', next },
          now + i,
        );
        expect(result.status).toBe('rotated');
      }
      // Statistics reach the view within a second or so of the backend going idle.
      let counted = await updates();
      for (let wait = 0; Number(counted.upd) < 20 && wait < 50; wait++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        counted = await updates();
      }
      expect({ upd: Number(counted.upd), hot: Number(counted.hot) }).toEqual({ upd: 20, hot: 20 });
      expect(await engine.grants.listUserRefreshTokens!('u', now + 20)).toHaveLength(1);
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS "${own}" CASCADE`);
      await engine.close();
      await pool.end();
    }
  });

  it('keeps password-attempt counters few, fixed-size and expiring, and writes none for refusals', async () => {
    await migrate(storage.pool, { schema });
    const flood = await failPasswordAttempts(storage.kv, 200);
    expect(flood.statuses.filter((status) => status === 429)).toHaveLength(150);
    const { rows } = await storage.pool.query<{ rows: string; longest: number; last: string }>(
      `SELECT count(*) AS rows, max(length(key)) AS longest, max(expires_at) AS last
       FROM "${schema}".key_values WHERE key LIKE 'rate:pw:%'`,
    );
    // One address bucket and one counter per username checked: nothing for the 150 refused.
    expect(Number(rows[0]!.rows)).toBe(51);
    expect(rows[0]!.longest).toBeLessThanOrEqual(64);
    expect(Number(rows[0]!.last)).toBeLessThanOrEqual(flood.startedAt + 2 * flood.windowMs);
  });

  /** Runs `use` on a storage of its own schema (what it writes never meets the sweeper's counts). */
  async function inOwnSchema(use: (own: PostgresStorage) => Promise<void>): Promise<void> {
    const ownSchema = `${schema}_own`;
    const own = postgresStorage({ connectionString: url!, schema: ownSchema, sweepIntervalMs: 0 });
    try {
      await migrate(own.pool, { schema: ownSchema });
      await use(own);
    } finally {
      await own.pool.query(`DROP SCHEMA IF EXISTS "${ownSchema}" CASCADE`);
      await own.close();
    }
  }

  it('accepts a private_key_jwt assertion once, also after its exp within the clock tolerance', async () => {
    await inOwnSchema(expectAssertionAcceptedOnce);
  });

  it('refuses NUL bytes and unpaired surrogates with 400 before PostgreSQL sees them, over HTTP', async () => {
    await inOwnSchema(expectUnstorableInputRefused);
  });

  it('keeps dynamic registrations where every process of the issuer finds, reads and deletes them', async () => {
    await migrate(storage.pool, { schema });
    await expectRegistrationsShared(storage);
  });

  it('sweeps expired rows in batches and keeps live ones', async () => {
    await migrate(storage.pool, { schema });
    const now = Date.now();
    const code = async (expiresAt: number) => {
      const codeHash = await hashSecret(crypto.randomUUID());
      await storage.grants.saveCode({
        codeHash,
        clientId: 'c',
        userId: 'u',
        grantId: crypto.randomUUID(),
        redirectUri: 'https://app.example/cb',
        scope: '',
        authTime: now - 120_000,
        expiresAt,
      });
      return codeHash;
    };
    const expired = await Promise.all(Array.from({ length: 5 }, () => code(now - 1)));
    const live = await code(now + 60_000);
    await storage.grants.revokeAccessToken(crypto.randomUUID(), now - 1);
    await storage.grants.revokeSubject!(crypto.randomUUID(), now - 10, now - 1);
    await kvSessionStore(storage.kv).createSession({
      idHash: live,
      userId: 'u',
      createdAt: now - 10,
      lastSeenAt: now - 10,
      expiresAt: now - 1,
    });
    await storage.kv.set('par:expired', '{}', now - 1);
    await storage.kv.set('par:live', '{}', now + 60_000);

    expect(await storage.sweepExpired({ now, batchSize: 2 })).toBe(9);
    const { rows } = await storage.pool.query(`SELECT code_hash FROM "${schema}".authorization_codes`);
    expect(rows).toEqual([{ code_hash: live }]);
    const entries = await storage.pool.query(
      `SELECT key FROM "${schema}".key_values WHERE key LIKE 'par:%' OR key LIKE 'session:%'`,
    );
    expect(entries.rows).toEqual([{ key: 'par:live' }]);
    expect(await storage.grants.findCode(expired[0]!, now - 10)).toBeNull();
    expect(await storage.sweepExpired({ now })).toBe(0);
  });

  it('rejects a schema name that is not a plain identifier', () => {
    expect(() => postgresStorage({ pool: storage.pool, schema: 'x"; DROP TABLE y; --' })).toThrow(TypeError);
  });
});

describe('postgres engine without a server', () => {
  it('fails queries within its connection timeout while PostgreSQL is unreachable', async () => {
    const port = await closedPort();
    const storage = postgresStorage({
      connectionString: `postgres://postgres@127.0.0.1:${port}/test`,
      sweepIntervalMs: 0,
    });
    try {
      await expect(storage.grants.isRevoked('jti', 'grant', Date.now())).rejects.toThrow();
      await expect(migrate(storage.pool)).rejects.toThrow();
    } finally {
      await storage.close();
    }
  });
});

/** A loopback port nobody listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe.skipIf(!url)('postgres engine prepared statements', () => {
  const schema = `gatehouse_test_${crypto.randomUUID().replaceAll('-', '')}`;
  // One connection, so the test sees the prepared statements of the connection the engine uses.
  const pool = new pg.Pool({ connectionString: url!, max: 1 });
  const now = Date.now();
  const record = (tokenHash: string) => ({
    tokenHash,
    grantId: crypto.randomUUID(),
    clientId: 'client-1',
    subject: { kind: 'user' as const, userId: 'user-1' },
    scope: 'openid',
    authTime: now,
    issuedAt: now,
    expiresAt: now + 60_000,
  });
  const prepared = async () =>
    (
      await pool.query<{ name: string }>(
        "SELECT name FROM pg_prepared_statements WHERE name LIKE 'gatehouse\\_%' ORDER BY name",
      )
    ).rows.map((row) => row.name);

  beforeAll(() => migrate(pool, { schema }));
  afterAll(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });

  it('prepares each statement once per connection, named by its text', async () => {
    const storage = postgresStorage({ pool, schema, sweepIntervalMs: 0 });
    const hash = await hashSecret('prepared-1');
    await storage.grants.saveRefreshToken(record(hash));
    await storage.grants.findRefreshToken(hash, Date.now());
    await storage.grants.findRefreshToken(hash, Date.now());
    const names = await prepared();
    expect(names).toHaveLength(2); // the INSERT and the SELECT, the second lookup reusing the first's
    for (const name of names) expect(name).toMatch(/^gatehouse_[0-9a-f]{40}$/);
    await storage.close();
  });

  it('falls back to unnamed statements when a prepared one goes missing or its table changed', async () => {
    const storage = postgresStorage({ pool, schema, sweepIntervalMs: 0 });
    const hash = await hashSecret('prepared-2');
    await storage.grants.saveRefreshToken(record(hash));
    expect((await storage.grants.findRefreshToken(hash, Date.now()))?.tokenHash).toBe(hash);
    // A pooler handing the next transaction another server connection looks like this: gone (26000).
    await pool.query('DEALLOCATE ALL');
    expect((await storage.grants.findRefreshToken(hash, Date.now()))?.tokenHash).toBe(hash);
    // A migration adding a column under `SELECT r.*` prepared before it (0A000).
    const other = postgresStorage({ pool, schema, sweepIntervalMs: 0 });
    expect((await other.grants.findRefreshToken(hash, Date.now()))?.tokenHash).toBe(hash);
    await pool.query(`ALTER TABLE "${schema}".refresh_tokens ADD COLUMN later_column text`);
    try {
      expect((await other.grants.findRefreshToken(hash, Date.now()))?.tokenHash).toBe(hash);
      expect((await other.grants.findRefreshToken(hash, Date.now()))?.tokenHash).toBe(hash);
    } finally {
      await pool.query(`ALTER TABLE "${schema}".refresh_tokens DROP COLUMN later_column`);
    }
    await storage.close();
    await other.close();
  });

  it('keeps the refresh-token lookup one primary-key probe of revoked grants under a plan made while there were none', async () => {
    await pool.query('DEALLOCATE ALL');
    await pool.query(`DELETE FROM "${schema}".revoked_grants`);
    const storage = postgresStorage({ pool, schema, sweepIntervalMs: 0 });
    const hash = await hashSecret('plan-1');
    await storage.grants.saveRefreshToken(record(hash));
    // The connection's generic plan, made now, while no grant is revoked, is the one it keeps.
    await pool.query('SET plan_cache_mode = force_generic_plan');
    try {
      expect((await storage.grants.findRefreshToken(hash, Date.now()))?.tokenHash).toBe(hash);
      await pool.query(
        `INSERT INTO "${schema}".revoked_grants (instance_id, grant_id, expires_at)
         SELECT 'default', 'revoked-' || i, $1::bigint FROM generate_series(1, 2000) i`,
        [now + 60_000],
      );
      const [{ name }] = (
        await pool.query<{ name: string }>(
          `SELECT name FROM pg_prepared_statements
           WHERE statement LIKE 'SELECT r.* FROM "${schema}"."refresh_tokens"%'`,
        )
      ).rows as [{ name: string }];
      const plan = (
        await pool.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE ${name}('default', ${Date.now()}, '${hash}')`,
        )
      ).rows
        .map((row) => row['QUERY PLAN'])
        .join('\n');
      // Probed by (instance_id, grant_id), not every revoked grant of the instance read and filtered.
      expect(plan).toMatch(
        /Index Scan using revoked_grants_pkey[^\n]*\n\s*Index Cond: [^\n]*grant_id = r\.grant_id/,
      );
      expect(plan).not.toMatch(/Rows Removed by (Join )?Filter: [0-9]{3,}/);
    } finally {
      await pool.query('RESET plan_cache_mode');
      await pool.query(`DELETE FROM "${schema}".revoked_grants`);
      await storage.close();
    }
  });

  it('prepares nothing with preparedStatements: false', async () => {
    await pool.query('DEALLOCATE ALL');
    const storage = postgresStorage({ pool, schema, sweepIntervalMs: 0, preparedStatements: false });
    const hash = await hashSecret('unprepared');
    await storage.grants.saveRefreshToken(record(hash));
    expect((await storage.grants.findRefreshToken(hash, Date.now()))?.tokenHash).toBe(hash);
    expect(await prepared()).toEqual([]);
    await storage.close();
  });
});
