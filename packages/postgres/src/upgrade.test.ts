import { createGatehouse, memoryClientStore, memoryUserStore } from '@gatehousejs/core';
import { hashSecret, stateStores } from '@gatehousejs/core/engine';
import { migrate, postgresEngine, postgresStorage } from '@gatehousejs/postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registeredClient } from '../../core/src/testing/registry-cases.js';
import { basic, ISSUER, post, testClients, testHasher, testKey } from '../../core/test/fixtures.js';

const url = process.env.DATABASE_URL;
if (!url) console.warn('@gatehousejs/postgres: DATABASE_URL is not set; skipping the upgrade test.');

/**
 * An upgrade from round 1: a schema at 001_init holding round 1's rows, written with round 1's
 * SQL, migrated to the current version, then used through `postgresStorage` and a Gatehouse
 * instance. Existing refresh tokens, sessions, consents and revocations keep working.
 */
describe.skipIf(!url)('postgres upgrade from schema version 1', () => {
  const schema = `gatehouse_upgrade_${crypto.randomUUID().replaceAll('-', '')}`;
  const q = (table: string) => `"${schema}"."${table}"`;
  let pool: pg.Pool;
  const now = Date.now();
  const secrets = {
    refresh: 'round-1-refresh-token',
    revokedRefresh: 'round-1-revoked',
    session: 'round-1-session',
  };

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: url });
    expect(await migrate(pool, { schema, target: '001_init' })).toEqual(['001_init']);
    // Round 1's rows, as its engine wrote them (its INSERT statements, its column set).
    const hash = hashSecret;
    await pool.query(
      `INSERT INTO ${q('refresh_tokens')} (token_hash, grant_id, client_id, user_id, scope, issued_at, expires_at)
       VALUES ($1, 'grant-1', 'demo-client', 'user-1', 'read write', $2, $3),
              ($4, 'grant-2', 'demo-client', 'user-1', 'read', $2, $3)`,
      [await hash(secrets.refresh), now - 60_000, now + 3_600_000, await hash(secrets.revokedRefresh)],
    );
    await pool.query(`INSERT INTO ${q('revoked_grants')} (grant_id, expires_at) VALUES ('grant-2', $1)`, [
      now + 3_600_000,
    ]);
    await pool.query(`INSERT INTO ${q('revoked_access_tokens')} (jti, expires_at) VALUES ('jti-1', $1)`, [
      now + 3_600_000,
    ]);
    await pool.query(
      `INSERT INTO ${q('sessions')} (id_hash, user_id, created_at, last_seen_at, expires_at) VALUES ($1, 'user-1', $2, $2, $3)`,
      [await hash(secrets.session), now - 1000, now + 3_600_000],
    );
    await pool.query(
      `INSERT INTO ${q('consents')} (user_id, client_id, scope, expires_at) VALUES ('user-1', 'other-client', 'read', $1)`,
      [now + 3_600_000],
    );
    await pool.query(`INSERT INTO ${q('rate_limits')} (key, count, expires_at) VALUES ('user:demo', 3, $1)`, [
      now + 60_000,
    ]);
  });

  afterAll(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });

  it('migrates to the current version, keeping every row (in the default instance)', async () => {
    expect(await migrate(pool, { schema })).toEqual([
      '002_revoked_subjects',
      '003_storage_v2',
      '004_user_grants',
      '005_key_values',
      '006_kv_state',
      '007_client_partitions',
      '008_hot_rotation',
    ]);
    const { rows } = await pool.query(
      `SELECT instance_id, subject_kind, subject_id, attrs FROM ${q('refresh_tokens')} ORDER BY grant_id`,
    );
    expect(rows).toEqual([
      { instance_id: 'default', subject_kind: 'user', subject_id: 'user-1', attrs: {} },
      { instance_id: 'default', subject_kind: 'user', subject_id: 'user-1', attrs: {} },
    ]);
  });

  it('keeps round-1 refresh tokens, sessions, consents, revocations and counters working', async () => {
    const storage = postgresStorage({ pool, schema, sweepIntervalMs: 0 });
    const gatehouse = createGatehouse({
      issuer: ISSUER,
      keys: [await testKey()],
      clients: memoryClientStore(await testClients()),
      users: memoryUserStore(
        [{ id: 'user-1', username: 'demo', passwordHash: await testHasher.hash('demo-password') }],
        { hasher: testHasher },
      ),
      storage,
      logger: { warn() {}, error() {} },
    });
    const refresh = (token: string) =>
      gatehouse.fetch(
        post(
          '/oauth2/v1/token',
          { grant_type: 'refresh_token', refresh_token: token },
          { Authorization: basic('demo-client', 'demo-secret') },
        ),
      );

    // The round-1 refresh token rotates, its successor works, and presenting it again is reuse.
    const rotated = await refresh(secrets.refresh);
    expect(rotated.status).toBe(200);
    const tokens = (await rotated.json()) as { refresh_token: string; scope: string };
    expect(tokens.scope).toBe('read write');
    expect((await refresh(tokens.refresh_token)).status).toBe(200);
    expect((await refresh(secrets.refresh)).status).toBe(400);

    // A grant revoked in round 1 stays revoked; so does a revoked access token.
    expect((await refresh(secrets.revokedRefresh)).status).toBe(400);
    expect(await storage.grants.isRevoked('jti-1', undefined, Date.now())).toBe(true);

    // The round-1 session still signs its user in.
    const sessionRequest = new Request(`${ISSUER}/api/whoami`, {
      headers: { Cookie: `gatehouse_session=${secrets.session}` },
    });
    const session = await gatehouse.authenticate(sessionRequest, { schemes: ['session'] });
    expect(session.ok && session.caller.sub).toBe('user-1');

    const { consents, rateLimits } = stateStores(storage);
    expect(await consents.findConsent('user-1', 'other-client', Date.now())).toEqual({
      userId: 'user-1',
      clientId: 'other-client',
      scope: 'read',
      expiresAt: now + 3_600_000,
    });
    expect((await rateLimits.get('user:demo', Date.now()))?.count).toBe(3);

    // User marks work on round-1 data: revoking the user ends the round-1 session.
    await gatehouse.revokeUser('user-1');
    expect((await gatehouse.authenticate(sessionRequest, { schemes: ['session'] })).ok).toBe(false);
  });

  it('leaves round-1 rows to the default instance only', async () => {
    const other = postgresEngine({ pool, schema, sweepIntervalMs: 0 }).instance(ISSUER);
    expect(await other.grants.isRevoked('jti-1', 'grant-2', Date.now())).toBe(false);
    const { sessions, consents, rateLimits } = stateStores(other);
    expect(await sessions.findSession(await hashSecret(secrets.session), Date.now())).toBeNull();
    expect(await consents.findConsent('user-1', 'other-client', Date.now())).toBeNull();
    expect(await rateLimits.get('user:demo', Date.now())).toBeNull();
  });
});

/**
 * The upgrade to schema version 6 (host contract v3: state in the key-value store): a schema at
 * 005_key_values holding live sessions, consents, rate-limit windows and replay ids of two
 * instances, written with the v2 engine's SQL, beside live codes, refresh tokens and a registration
 * written by the current engine. After the migration the old tables are gone and Gatehouse reads
 * every record from `key_values`.
 */
describe.skipIf(!url)(
  'postgres upgrade from schema version 5 (state in kv, then registry partitions)',
  () => {
    const schema = `gatehouse_upgrade6_${crypto.randomUUID().replaceAll('-', '')}`;
    const q = (table: string) => `"${schema}"."${table}"`;
    let pool: pg.Pool;
    const now = Date.now();
    const secrets = { code: 'v2-code', refresh: 'v2-refresh', session: 'v2-session' };

    beforeAll(async () => {
      pool = new pg.Pool({ connectionString: url });
      expect(await migrate(pool, { schema, target: '005_key_values' })).toHaveLength(5);
      // v2's rows, with its column set: optional fields in `attrs`, percent signs and Unicode kept.
      for (const instance of ['default', ISSUER]) {
        await pool.query(
          `INSERT INTO ${q('sessions')} (instance_id, id_hash, user_id, created_at, last_seen_at, expires_at, attrs)
         VALUES ($1, $2, 'user-1', $3, $4, $5, $6), ($1, 'ended', 'user-1', $3, $3, $7, '{}')`,
          [
            instance,
            await hashSecret(secrets.session),
            now - 2000,
            now - 1000,
            now + 3_600_000,
            JSON.stringify({ sid: 'sid-1', amr: ['pwd'], ext: { note: '100% Zoë' } }),
            now - 1,
          ],
        );
        await pool.query(
          `INSERT INTO ${q('consents')} (instance_id, user_id, client_id, scope, expires_at, attrs)
         VALUES ($1, 'user-1', 'other-client', 'read', $2, $3), ($1, 'usér%2', 'https://c.example/m.json', 'a b', $2, '{}')`,
          [instance, now + 3_600_000, JSON.stringify({ ext: { claims: ['email'] } })],
        );
        await pool.query(
          `INSERT INTO ${q('rate_limits')} (instance_id, key, count, expires_at) VALUES ($1, 'pw:user:x', 4, $2)`,
          [instance, now + 60_000],
        );
        await pool.query(
          `INSERT INTO ${q('replay_ids')} (instance_id, id, expires_at) VALUES ($1, 'dpop:proof-1', $2)`,
          [instance, now + 60_000],
        );
      }
      // Grants and registrations keep their tables: written by the current engine.
      const view = postgresStorage({ pool, schema, sweepIntervalMs: 0 });
      await view.grants.saveRefreshToken({
        tokenHash: await hashSecret(secrets.refresh),
        grantId: 'grant-1',
        clientId: 'demo-client',
        subject: { kind: 'user', userId: 'user-1' },
        scope: 'read write',
        issuedAt: now - 60_000,
        expiresAt: now + 3_600_000,
      });
      // A registration as versions before 007 wrote it: no partition, no use.
      const registration = registeredClient(now, {
        client: { id: 'registered-1', type: 'public', redirectUris: [] },
      });
      await pool.query(
        `INSERT INTO ${q('registered_clients')} (instance_id, client_id, client, registered_at, expires_at, ext)
       VALUES ('default', $1, $2, $3, NULL, $4)`,
        [
          registration.client.id,
          JSON.stringify(registration.client),
          registration.registeredAt,
          JSON.stringify(registration.ext),
        ],
      );
    });

    afterAll(async () => {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    });

    it('moves the live rows of every instance into key_values and drops the old tables', async () => {
      expect(await migrate(pool, { schema })).toEqual([
        '006_kv_state',
        '007_client_partitions',
        '008_hot_rotation',
      ]);
      expect(await migrate(pool, { schema })).toEqual([]);
      const { rows } = await pool.query<{ instance_id: string; n: number }>(
        `SELECT instance_id, count(*)::int AS n FROM ${q('key_values')} GROUP BY instance_id ORDER BY instance_id`,
      );
      // Per instance: one session (the ended one left behind), two consents, a window's counter and
      // end, one replay id.
      expect(rows).toEqual([
        { instance_id: 'default', n: 6 },
        { instance_id: ISSUER, n: 6 },
      ]);
      const { rows: tables } = await pool.query(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_name IN ('sessions', 'consents', 'rate_limits', 'replay_ids')`,
        [schema],
      );
      expect(tables).toEqual([]);
    });

    it('gives registrations saved before 007 no partition: never evicted, and their first use recorded', async () => {
      const storage = postgresStorage({ pool, schema, sweepIntervalMs: 0 });
      const { rows } = await pool.query(
        `SELECT partition, used_at FROM ${q('registered_clients')} WHERE client_id = 'registered-1'`,
      );
      expect(rows).toEqual([{ partition: null, used_at: null }]);
      const limits = (partition: string) => ({ maxClients: 2, partition });
      const heavy = registeredClient(now, { expiresAt: now + 60_000 });
      await storage.clients.saveClient(heavy, limits('net:heavy'));
      // Full: the lighter network evicts the heavier one's, never the registration without a partition.
      const lighter = registeredClient(now + 1, { expiresAt: now + 60_000 });
      expect(await storage.clients.saveClient(lighter, limits('net:light'))).toEqual({
        evictedClientId: heavy.client.id,
      });
      expect(await storage.clients.touchClient('registered-1', undefined, now + 2)).toBe(true);
      expect((await storage.clients.findClient('registered-1', now + 3))?.usedAt).toBe(now + 2);
    });

    it('migrates several schemas through one connection (its session-local helpers are replaced, not redefined)', async () => {
      const single = new pg.Pool({ connectionString: url, max: 1 });
      const schemas = [1, 2].map((n) => `${schema}_${n}`);
      try {
        for (const each of schemas) expect(await migrate(single, { schema: each })).toContain('006_kv_state');
      } finally {
        for (const each of schemas) await single.query(`DROP SCHEMA IF EXISTS "${each}" CASCADE`);
        await single.end();
      }
    });

    it('reads v2 sessions, consents, counters and replay ids through the v3 stores, beside grants and registrations', async () => {
      const storage = postgresStorage({ pool, schema, sweepIntervalMs: 0 });
      const gatehouse = createGatehouse({
        issuer: ISSUER,
        keys: [await testKey()],
        clients: memoryClientStore(await testClients()),
        users: memoryUserStore(
          [{ id: 'user-1', username: 'demo', passwordHash: await testHasher.hash('demo-password') }],
          { hasher: testHasher },
        ),
        storage,
        logger: { warn() {}, error() {} },
      });
      const session = await gatehouse.authenticate(
        new Request(`${ISSUER}/api/whoami`, { headers: { Cookie: `gatehouse_session=${secrets.session}` } }),
        { schemes: ['session'] },
      );
      expect(session.ok && session.caller.sub).toBe('user-1');
      const { sessions, consents, rateLimits, replay } = stateStores(storage);
      expect(await sessions.findSession(await hashSecret(secrets.session), now)).toEqual({
        idHash: await hashSecret(secrets.session),
        userId: 'user-1',
        sid: 'sid-1',
        amr: ['pwd'],
        ext: { note: '100% Zoë' },
        createdAt: now - 2000,
        lastSeenAt: now - 1000,
        expiresAt: now + 3_600_000,
      });
      expect(await sessions.findSession('ended', now - 10)).toBeNull();
      expect(await consents.findConsent('user-1', 'other-client', now)).toEqual({
        userId: 'user-1',
        clientId: 'other-client',
        scope: 'read',
        expiresAt: now + 3_600_000,
        ext: { claims: ['email'] },
      });
      expect((await consents.findConsent('usér%2', 'https://c.example/m.json', now))?.scope).toBe('a b');
      expect(await rateLimits.get('pw:user:x', now)).toEqual({ count: 4, resetAt: now + 60_000 });
      expect((await rateLimits.increment('pw:user:x', 900_000, now)).count).toBe(5);
      expect(await replay.useOnce('dpop:proof-1', now + 60_000, now)).toBe(false);
      expect(await storage.clients.findClient('registered-1', now)).not.toBeNull();
      const refreshed = await gatehouse.fetch(
        post(
          '/oauth2/v1/token',
          { grant_type: 'refresh_token', refresh_token: secrets.refresh },
          { Authorization: basic('demo-client', 'demo-secret') },
        ),
      );
      expect(refreshed.status).toBe(200);
      // Another instance's rows moved to that instance.
      const other = stateStores(postgresEngine({ pool, schema, sweepIntervalMs: 0 }).instance(ISSUER));
      expect((await other.consents.findConsent('user-1', 'other-client', now))?.scope).toBe('read');
    });
  },
);
