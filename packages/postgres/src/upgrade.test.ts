import { createGatehouse, memoryClientStore, memoryUserStore } from '@gatehousejs/core';
import { hashSecret } from '@gatehousejs/core/engine';
import { migrate, postgresEngine, postgresStorage } from '@gatehousejs/postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeRecord, refreshRecord, sessionRecord } from '../../core/src/testing/records.js';
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

    expect(await storage.consents.findConsent('user-1', 'other-client', Date.now())).toEqual({
      userId: 'user-1',
      clientId: 'other-client',
      scope: 'read',
      expiresAt: now + 3_600_000,
    });
    expect((await storage.rateLimits.get('user:demo', Date.now()))?.count).toBe(3);

    // User marks work on round-1 data: revoking the user ends the round-1 session.
    await gatehouse.revokeUser('user-1');
    expect((await gatehouse.authenticate(sessionRequest, { schemes: ['session'] })).ok).toBe(false);
  });

  it('leaves round-1 rows to the default instance only', async () => {
    const other = postgresEngine({ pool, schema, sweepIntervalMs: 0 }).instance(ISSUER);
    expect(await other.grants.isRevoked('jti-1', 'grant-2', Date.now())).toBe(false);
    expect(await other.sessions.findSession(await hashSecret(secrets.session), Date.now())).toBeNull();
    expect(await other.consents.findConsent('user-1', 'other-client', Date.now())).toBeNull();
    expect(await other.rateLimits.get('user:demo', Date.now())).toBeNull();
  });
});

/**
 * The upgrade to schema version 5 (the key-value store): a schema at 004_user_grants with live
 * codes, refresh tokens, sessions, registrations and revocations written by the current engine,
 * migrated while that engine's view stays open; every record keeps working and `kv` works after.
 */
describe.skipIf(!url)('postgres upgrade from schema version 4 to 5 (key-value store)', () => {
  const schema = `gatehouse_upgrade5_${crypto.randomUUID().replaceAll('-', '')}`;
  let pool: pg.Pool;

  beforeAll(() => {
    pool = new pg.Pool({ connectionString: url });
  });
  afterAll(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });

  it('adds key_values and keeps every live record of version 4', async () => {
    expect(await migrate(pool, { schema, target: '004_user_grants' })).toHaveLength(4);
    const engine = postgresEngine({ pool, schema, sweepIntervalMs: 0 });
    const view = engine.instance(ISSUER);
    const now = Math.floor(Date.now() / 1000) * 1000;
    const code = await codeRecord(now);
    const token = await refreshRecord(now, { grantedAt: now - 1000 });
    const session = await sessionRecord(now);
    const registration = registeredClient(now, { expiresAt: now + 60_000 });
    await view.grants.saveCode(code);
    await view.grants.saveRefreshToken(token);
    await view.grants.revokeAccessToken('jti-v4', now + 60_000);
    await view.sessions.createSession(session);
    await view.clients.saveClient(registration);
    expect(await view.replay.useOnce('assertion-v4', now + 60_000, now)).toBe(true);
    // Before the migration the table is missing: the key-value store fails (a 503 through Gatehouse).
    await expect(view.kv.get('par:x', now)).rejects.toThrow(/key_values/);

    expect(await migrate(pool, { schema })).toEqual(['005_key_values']);

    expect(await view.grants.findCode(code.codeHash, now)).toEqual(code);
    expect(await view.grants.findRefreshToken(token.tokenHash, now)).toEqual(token);
    expect(await view.grants.isRevoked('jti-v4', undefined, now)).toBe(true);
    expect(await view.sessions.findSession(session.idHash, now)).toEqual(session);
    expect(await view.clients.findClient(registration.client.id, now)).toEqual(registration);
    expect(await view.replay.useOnce('assertion-v4', now + 60_000, now)).toBe(false);
    expect((await view.grants.redeemCode(code.codeHash, null, now, now + 600_000)).status).toBe('redeemed');

    expect(await view.kv.add('par:x', '{"client_id":"c"}', now + 60_000, now)).toBe(true);
    expect(await view.kv.take('par:x', now)).toBe('{"client_id":"c"}');
    await engine.close();
  });
});
