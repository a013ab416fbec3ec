import { createServer } from 'node:net';
import { hashSecret } from '@gatehouse/core';
import { type RedisStorage, redisStorage } from '@gatehouse/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropPrefix } from '../test/drop-prefix.js';

const url = process.env.REDIS_URL;
if (!url) console.warn('@gatehouse/redis: REDIS_URL is not set; skipping the Redis engine tests.');

describe.skipIf(!url)('redis engine specifics', () => {
  const prefix = `gatehouse-test-${crypto.randomUUID()}`;
  let storage: RedisStorage;
  beforeAll(async () => {
    storage = redisStorage({ url: url!, prefix });
    await storage.ready();
  });
  afterAll(async () => {
    await dropPrefix(storage, prefix);
    await storage.close();
  });

  it('hands every record its expiry, so Redis deletes it without a sweeper', async () => {
    const now = Date.now();
    const codeHash = await hashSecret(crypto.randomUUID());
    const grantId = crypto.randomUUID();
    await storage.grants.saveCode({
      codeHash,
      clientId: 'c',
      userId: 'u',
      grantId,
      redirectUri: 'https://app.example/cb',
      scope: '',
      authTime: now,
      expiresAt: now + 60_000,
    });
    await storage.grants.revokeGrant(grantId, now + 120_000);
    await storage.sessions.createSession({
      idHash: codeHash,
      userId: 'u',
      createdAt: now,
      lastSeenAt: now,
      expiresAt: now + 30_000,
    });
    await storage.rateLimits.increment('login:u', 10_000, now);

    const ttl = (key: string) => storage.client.pttl(key);
    const within = (value: number, max: number) => value > 0 && value <= max;
    expect(within(await ttl(`{${prefix}}:code:${codeHash}`), 60_000)).toBe(true);
    expect(within(await ttl(`{${prefix}}:revoked-grant:${grantId}`), 120_000)).toBe(true);
    expect(within(await ttl(`${prefix}:session:${codeHash}`), 30_000)).toBe(true);
    expect(within(await ttl(`${prefix}:rate:login:u`), 10_000)).toBe(true);
  });

  it('records already past their expiry are not kept at all', async () => {
    const now = Date.now();
    const jti = crypto.randomUUID();
    await storage.grants.revokeAccessToken(jti, now - 1000);
    expect(await storage.client.exists(`{${prefix}}:revoked-jti:${jti}`)).toBe(0);
  });

  it('keeps instances with different prefixes apart', async () => {
    const other = redisStorage({ client: storage.client, prefix: `${prefix}-other` });
    const now = Date.now();
    const grantId = crypto.randomUUID();
    await storage.grants.revokeGrant(grantId, now + 60_000);
    expect(await storage.grants.isRevoked('jti', grantId, now)).toBe(true);
    expect(await other.grants.isRevoked('jti', grantId, now)).toBe(false);
    await other.close();
    // A given client belongs to the host: closing the engine leaves it connected.
    expect(storage.client.status).toBe('ready');
  });

  it('rejects a prefix with braces (the engine adds the cluster hash tag itself)', () => {
    expect(() => redisStorage({ client: storage.client, prefix: '{tag}' })).toThrow(TypeError);
  });
});

describe('redis engine without a server', () => {
  it('fails commands at once instead of queueing them while Redis is unreachable', async () => {
    const port = await closedPort();
    const storage = redisStorage({ url: `redis://127.0.0.1:${port}`, prefix: 'unreachable' });
    try {
      await expect(storage.grants.isRevoked('jti', 'grant', Date.now())).rejects.toThrow();
      await expect(storage.sessions.findSession('hash', Date.now())).rejects.toThrow();
      await expect(storage.ready(200)).rejects.toThrow('redis not ready after 200 ms');
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
