import { createGatehouse, memoryClientStore, memoryUserStore } from '@gatehousejs/core';
import { hashSecret, stateStores } from '@gatehousejs/core/engine';
import { migrateRedisToKv, type RedisStorage, redisStorage } from '@gatehousejs/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registeredClient } from '../../core/src/testing/registry-cases.js';
import { basic, ISSUER, post, testClients, testHasher, testKey } from '../../core/test/fixtures.js';
import { dropPrefix } from '../test/drop-prefix.js';

const url = process.env.REDIS_URL;
if (!url) console.warn('@gatehousejs/redis: REDIS_URL is not set; skipping the contract v3 upgrade test.');

/**
 * An upgrade from storage contract v2: an instance's sessions, consents, rate-limit windows and
 * replay ids, written with v2's commands under v2's keys beside live grants and a registration,
 * moved by `migrateRedisToKv` into the key-value store, then used through a Gatehouse instance.
 */
describe.skipIf(!url)('redis upgrade from contract v2 (state in kv)', () => {
  const prefix = `gatehouse-upgrade-kv-${crypto.randomUUID()}`;
  const v2 = (rest: string) => `${prefix}:{7:default:${rest}}`;
  let storage: RedisStorage;
  const now = Date.now();
  const secrets = { refresh: 'v2-refresh-token', session: 'v2-session' };
  const registration = registeredClient(now);

  beforeAll(async () => {
    storage = redisStorage({ url: url!, prefix });
    await storage.ready();
    const { client } = storage;
    // Grants and registrations keep their v2 layout: written through the engine.
    await storage.grants.saveRefreshToken({
      tokenHash: await hashSecret(secrets.refresh),
      grantId: 'grant-1',
      clientId: 'demo-client',
      subject: { kind: 'user', userId: 'user-1' },
      scope: 'read write',
      issuedAt: now - 60_000,
      expiresAt: now + 3_600_000,
    });
    await storage.clients.saveClient(registration);
    // v2's session: a hash of the record without lastSeenAt, its expiry and lastSeenAt.
    const idHash = await hashSecret(secrets.session);
    const session = {
      idHash,
      sid: 'sid-1',
      userId: 'user-1',
      createdAt: now - 1000,
      expiresAt: now + 3_600_000,
      amr: ['pwd'],
    };
    await client.hset(
      v2(`session:${idHash}`),
      'r',
      JSON.stringify(session),
      'exp',
      String(session.expiresAt),
      'seen',
      String(now - 500),
    );
    await client.pexpireat(v2(`session:${idHash}`), session.expiresAt);
    // An ended session is dropped, not moved.
    await client.hset(
      v2('session:ended'),
      'r',
      JSON.stringify({ ...session, idHash: 'ended' }),
      'exp',
      String(now - 1),
    );
    const consent = { userId: 'user-1', clientId: 'other-client', scope: 'read', expiresAt: now + 3_600_000 };
    await client.set(v2('consent:6:user-1:other-client'), JSON.stringify(consent), 'PXAT', consent.expiresAt);
    await client.hset(v2('rate:pw:user:x'), 'count', '4', 'reset', String(now + 60_000));
    await client.pexpireat(v2('rate:pw:user:x'), now + 60_000);
    await client.set(v2('once:dpop:proof-1'), '1', 'PXAT', now + 60_000);
  });

  afterAll(async () => {
    await dropPrefix(storage, prefix);
    await storage.close();
  });

  it('moves every live v2 state record into the key-value store, once, and deletes the old keys', async () => {
    expect(await migrateRedisToKv({ client: storage.client, prefix })).toEqual({
      sessions: 1,
      consents: 1,
      rateLimits: 1,
      replayIds: 1,
    });
    const old = [
      v2(`session:${await hashSecret(secrets.session)}`),
      v2('session:ended'),
      v2('consent:6:user-1:other-client'),
      v2('rate:pw:user:x'),
      v2('once:dpop:proof-1'),
    ];
    expect(await storage.client.exists(...old)).toBe(0);
    expect(await migrateRedisToKv({ client: storage.client, prefix })).toEqual({
      sessions: 0,
      consents: 0,
      rateLimits: 0,
      replayIds: 0,
    });
  });

  it('keeps v2 sessions, consents, counters, replay ids, refresh tokens and registrations working', async () => {
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
    const found = await stateStores(storage).sessions.findSession(await hashSecret(secrets.session), now);
    expect(found).toMatchObject({ sid: 'sid-1', amr: ['pwd'], lastSeenAt: now - 500, createdAt: now - 1000 });

    const refreshed = await gatehouse.fetch(
      post(
        '/oauth2/v1/token',
        { grant_type: 'refresh_token', refresh_token: secrets.refresh },
        { Authorization: basic('demo-client', 'demo-secret') },
      ),
    );
    expect(refreshed.status).toBe(200);

    const { consents, rateLimits, replay } = stateStores(storage);
    expect((await consents.findConsent('user-1', 'other-client', Date.now()))?.scope).toBe('read');
    expect(await rateLimits.get('pw:user:x', Date.now())).toEqual({ count: 4, resetAt: now + 60_000 });
    expect((await rateLimits.increment('pw:user:x', 900_000, Date.now())).count).toBe(5);
    expect(await replay.useOnce('dpop:proof-1', now + 60_000, Date.now())).toBe(false);
    expect(await storage.clients.findClient(registration.client.id, Date.now())).toEqual(registration);
  });
});
