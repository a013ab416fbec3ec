import { createGatehouse, memoryClientStore, memoryUserStore } from '@gatehousejs/core';
import { hashSecret, stateStores } from '@gatehousejs/core/engine';
import { migrateRedisKeys, type RedisStorage, redisEngine, redisStorage } from '@gatehousejs/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, ISSUER, post, testClients, testHasher, testKey } from '../../core/test/fixtures.js';
import { dropPrefix } from '../test/drop-prefix.js';

const url = process.env.REDIS_URL;
if (!url) console.warn('@gatehousejs/redis: REDIS_URL is not set; skipping the upgrade test.');

/**
 * An upgrade from round 1: round 1's keys, written with round 1's commands and layout, moved by
 * `migrateRedisKeys` into key layout v2, then used through `redisStorage` and a Gatehouse instance.
 */
describe.skipIf(!url)('redis upgrade from key layout 1', () => {
  const prefix = `gatehouse-upgrade-${crypto.randomUUID()}`;
  let storage: RedisStorage;
  const now = Date.now();
  const secrets = {
    refresh: 'round-1-refresh-token',
    revokedRefresh: 'round-1-revoked',
    session: 'round-1-session',
  };

  beforeAll(async () => {
    storage = redisStorage({ url: url!, prefix });
    await storage.ready();
    const { client } = storage;
    const refresh = async (secret: string, grantId: string) => {
      const tokenHash = await hashSecret(secret);
      const record = {
        tokenHash,
        grantId,
        clientId: 'demo-client',
        userId: 'user-1',
        scope: 'read write',
        issuedAt: now - 60_000,
        expiresAt: now + 3_600_000,
      };
      const key = `{${prefix}}:rt:${tokenHash}`;
      await client.hset(key, 'r', JSON.stringify(record), 'exp', String(record.expiresAt), 'grant', grantId);
      await client.pexpireat(key, record.expiresAt);
    };
    await refresh(secrets.refresh, 'grant-1');
    await refresh(secrets.revokedRefresh, 'grant-2');
    await client.set(`{${prefix}}:revoked-grant:grant-2`, String(now + 3_600_000), 'PXAT', now + 3_600_000);
    await client.set(`{${prefix}}:revoked-jti:jti-1`, String(now + 3_600_000), 'PXAT', now + 3_600_000);
    const sessionKey = `${prefix}:session:${await hashSecret(secrets.session)}`;
    const session = {
      idHash: await hashSecret(secrets.session),
      userId: 'user-1',
      createdAt: now - 1000,
      expiresAt: now + 3_600_000,
    };
    await client.hset(
      sessionKey,
      'r',
      JSON.stringify(session),
      'exp',
      String(session.expiresAt),
      'seen',
      String(now - 1000),
    );
    await client.pexpireat(sessionKey, session.expiresAt);
    const consent = { userId: 'user-1', clientId: 'other-client', scope: 'read', expiresAt: now + 3_600_000 };
    await client.set(
      `${prefix}:consent:6:user-1:other-client`,
      JSON.stringify(consent),
      'PXAT',
      consent.expiresAt,
    );
    await client.hset(`${prefix}:rate:user:demo`, 'count', '3', 'reset', String(now + 60_000));
    // An expired leftover is dropped, not moved.
    await client.set(`{${prefix}}:revoked-jti:old`, String(now - 1), 'PXAT', now + 60_000);
  });

  afterAll(async () => {
    await dropPrefix(storage, prefix);
    await storage.close();
  });

  it('moves every live round-1 record into the default instance, once', async () => {
    expect(await migrateRedisKeys({ client: storage.client, prefix })).toEqual({
      codes: 0,
      refreshTokens: 2,
      revocations: 2,
      sessions: 1,
      consents: 1,
      rateLimits: 1,
    });
    expect(await storage.client.keys(`{${prefix}}:*`)).toEqual([]);
    expect(await migrateRedisKeys({ client: storage.client, prefix })).toEqual({
      codes: 0,
      refreshTokens: 0,
      revocations: 0,
      sessions: 0,
      consents: 0,
      rateLimits: 0,
    });
  });

  it('keeps round-1 refresh tokens, sessions, consents, revocations and counters working', async () => {
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
    const rotated = await refresh(secrets.refresh);
    expect(rotated.status).toBe(200);
    const tokens = (await rotated.json()) as { refresh_token: string; scope: string };
    expect(tokens.scope).toBe('read write');
    expect((await refresh(tokens.refresh_token)).status).toBe(200);
    expect((await refresh(secrets.refresh)).status).toBe(400);
    expect((await refresh(secrets.revokedRefresh)).status).toBe(400);
    expect(await storage.grants.isRevoked('jti-1', undefined, Date.now())).toBe(true);
    expect(await storage.grants.isRevoked('old', undefined, Date.now())).toBe(false);

    const session = await gatehouse.authenticate(
      new Request(`${ISSUER}/api/whoami`, { headers: { Cookie: `gatehouse_session=${secrets.session}` } }),
      { schemes: ['session'] },
    );
    expect(session.ok && session.caller.sub).toBe('user-1');
    const { consents, rateLimits } = stateStores(storage);
    expect((await consents.findConsent('user-1', 'other-client', Date.now()))?.scope).toBe('read');
    expect((await rateLimits.get('user:demo', Date.now()))?.count).toBe(3);
  });

  it('leaves round-1 records to the default instance only', async () => {
    const other = redisEngine({ client: storage.client, prefix }).instance(ISSUER);
    expect(await other.grants.isRevoked('jti-1', 'grant-2', Date.now())).toBe(false);
    const { sessions, consents } = stateStores(other);
    expect(await sessions.findSession(await hashSecret(secrets.session), Date.now())).toBeNull();
    expect(await consents.findConsent('user-1', 'other-client', Date.now())).toBeNull();
  });
});
