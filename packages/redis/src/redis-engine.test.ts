import { connect, createServer, type Server } from 'node:net';
import {
  type GrantStore,
  hashSecret,
  kvRateLimitStore,
  kvSessionStore,
  type RefreshTokenRecord,
} from '@gatehousejs/core/engine';
import { type RedisStorage, redisStorage } from '@gatehousejs/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAssertionAcceptedOnce } from '../../core/test/assertion-replay.js';
import { failPasswordAttempts } from '../../core/test/password-attempts.js';
import { expectRegistrationsShared } from '../../core/test/registration-across-processes.js';
import { dropPrefix } from '../test/drop-prefix.js';
import {
  defaultGrantScripts,
  type GrantScripts,
  grantScripts,
  redeemCodeScript,
  rotateRefreshTokenScript,
} from './grant-scripts.js';
import { pointerValue, redisGrantStore } from './grant-store.js';
import { keyLayout } from './keys.js';
import { revocationHub } from './revocation-channel.js';

const url = process.env.REDIS_URL;
if (!url) console.warn('@gatehousejs/redis: REDIS_URL is not set; skipping the Redis engine tests.');

describe.skipIf(!url)('redis engine specifics', () => {
  const prefix = `gatehouse-test-${crypto.randomUUID()}`;
  // Key layout v2 of the instance `default` (what redisStorage serves), see keys.ts.
  const key = (rest: string) => `${prefix}:{7:default:${rest}}`;
  const grantKey = (grantId: string, rest: string) => `${prefix}:{7:default:g:${grantId}}:${rest}`;
  let storage: RedisStorage;
  beforeAll(async () => {
    storage = redisStorage({ url: url!, prefix });
    await storage.ready();
  });
  afterAll(async () => {
    await dropPrefix(storage, prefix);
    await storage.close();
  });

  const within = (value: number, max: number) => value > 0 && value <= max;

  it('accepts a private_key_jwt assertion once, also after its exp within the clock tolerance', async () => {
    await expectAssertionAcceptedOnce(storage);
  });

  it('keeps dynamic registrations where every process of the issuer finds, reads and deletes them', async () => {
    await expectRegistrationsShared(storage);
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
    await kvSessionStore(storage.kv).createSession({
      idHash: codeHash,
      userId: 'u',
      createdAt: now,
      lastSeenAt: now,
      expiresAt: now + 30_000,
    });
    await kvRateLimitStore(storage.kv).increment('login:u', 10_000, now);
    const userId = crypto.randomUUID();
    await storage.grants.revokeSubject!(userId, now, now + 90_000);
    await storage.kv.set('par:set', '{}', now + 40_000);
    await storage.kv.add('par:added', '{}', now + 50_000, now);
    await storage.kv.set('device:d', 'pending', now + 1000);
    await storage.kv.swap('device:d', 'pending', 'approved', now + 20_000, now);

    const ttl = (key: string) => storage.client.pttl(key);
    expect(within(await ttl(grantKey(grantId, `code:${codeHash}`)), 60_000)).toBe(true);
    expect(within(await ttl(key(`code:${codeHash}`)), 60_000)).toBe(true);
    expect(within(await ttl(grantKey(grantId, 'revoked')), 120_000)).toBe(true);
    expect(within(await ttl(key(`kv:session:${codeHash}`)), 30_000)).toBe(true);
    expect(within(await ttl(key('kv:rate:login:u')), 10_000)).toBe(true);
    expect(within(await ttl(key('kv:rate-end:login:u')), 10_000)).toBe(true);
    expect(within(await ttl(key(`user:${userId}`)), 90_000)).toBe(true);
    expect(within(await ttl(key('kv:par:set')), 40_000)).toBe(true);
    expect(within(await ttl(key('kv:par:added')), 50_000)).toBe(true);
    expect(await ttl(key('kv:device:d'))).toBeGreaterThan(1000);
    expect(within(await ttl(key('kv:device:d')), 20_000)).toBe(true);
  });

  it('serves registrations saved at their own keys before fair shares: found, touched, deleted, never evicted', async () => {
    const legacyPrefix = `gatehouse-test-${crypto.randomUUID()}`;
    const legacy = redisStorage({ url: url!, prefix: legacyPrefix });
    await legacy.ready();
    try {
      const now = Date.now();
      const id = `legacy-${crypto.randomUUID()}`;
      const registration = {
        client: { id, name: 'Before', type: 'public' as const, redirectUris: ['https://app.example/cb'] },
        registeredAt: now - 1000,
      };
      // As the earlier layout wrote it: the hash at its own key, the id in the index.
      const at = `${legacyPrefix}:{7:default:client:${id}}`;
      await legacy.client.hset(at, 'r', JSON.stringify(registration), 'exp', String(now + 60_000));
      await legacy.client.pexpireat(at, now + 60_000);
      await legacy.client.zadd(`${legacyPrefix}:{7:default:clients}`, String(now + 60_000), id);
      expect(await legacy.clients.findClient(id, now)).toEqual({ ...registration, expiresAt: now + 60_000 });
      expect(await legacy.clients.touchClient(id, now + 120_000, now + 1)).toBe(true);
      expect(await legacy.clients.findClient(id, now + 2)).toEqual({
        ...registration,
        expiresAt: now + 120_000,
        usedAt: now + 1,
      });
      // Full (2): the legacy one has no partition, so the lighter network evicts the heavier's.
      const heavy = { ...registration, client: { ...registration.client, id: `${id}-heavy` } };
      await legacy.clients.saveClient(heavy, { maxClients: 2, partition: 'net:heavy' });
      const lighter = { ...registration, client: { ...registration.client, id: `${id}-light` } };
      expect(await legacy.clients.saveClient(lighter, { maxClients: 2, partition: 'net:light' })).toEqual({
        evictedClientId: heavy.client.id,
      });
      expect(await legacy.clients.findClient(id, now + 2)).not.toBeNull();
      await legacy.clients.deleteClient(id);
      expect(await legacy.clients.findClient(id, now + 2)).toBeNull();
      expect(await legacy.client.exists(at)).toBe(0);
    } finally {
      await dropPrefix(legacy, legacyPrefix);
      await legacy.close();
    }
  });

  it('keeps password-attempt counters few, fixed-size and expiring, and writes none for refusals', async () => {
    const flood = await failPasswordAttempts(storage.kv, 200);
    expect(flood.statuses.filter((status) => status === 429)).toHaveLength(150);
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await storage.client.scan(cursor, 'MATCH', key('kv:rate:pw:*'), 'COUNT', 500);
      keys.push(...found);
      cursor = next;
    } while (cursor !== '0');
    // One address bucket and one counter per username checked: nothing for the 150 refused.
    expect(keys).toHaveLength(51);
    const longest = Math.max(...keys.map((found) => found.length - key('').length));
    expect(longest).toBeLessThanOrEqual(80);
    for (const found of keys) {
      expect(within(await storage.client.pttl(found), 2 * flood.windowMs)).toBe(true);
    }
  });

  it('records already past their expiry are not kept at all', async () => {
    const now = Date.now();
    const jti = crypto.randomUUID();
    await storage.grants.revokeAccessToken(jti, now - 1000);
    expect(await storage.client.exists(key(`jti:${jti}`))).toBe(0);
    await storage.kv.set('par:late', '{}', now - 1000);
    expect(await storage.kv.add('par:late-added', '{}', now - 1000, now)).toBe(true);
    expect(await storage.client.exists(key('kv:par:late'), key('kv:par:late-added'))).toBe(0);
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

  const codeOf = async (now: number) => ({
    codeHash: await hashSecret(crypto.randomUUID()),
    clientId: 'c',
    userId: 'u',
    grantId: crypto.randomUUID(),
    redirectUri: 'https://app.example/cb',
    scope: '',
    authTime: now,
    expiresAt: now + 60_000,
  });
  const refreshOf = async (now: number, grantId: string) => ({
    tokenHash: await hashSecret(crypto.randomUUID()),
    grantId,
    clientId: 'c',
    subject: { kind: 'user' as const, userId: 'u' },
    scope: '',
    issuedAt: now,
    expiresAt: now + 3_600_000,
  });

  const userRefresh = async (issuedAt: number, grantId: string, userId: string) => ({
    ...(await refreshOf(issuedAt, grantId)),
    subject: { kind: 'user' as const, userId },
  });

  /** A user's code redeemed for a refresh token, which is then rotated: both consumes of `grants`. */
  const expectRedeemedThenRotated = async (grants: GrantStore) => {
    const now = Date.now();
    const userId = crypto.randomUUID();
    const code = { ...(await codeOf(now)), userId };
    await grants.saveCode(code);
    const issued = await userRefresh(now, code.grantId, userId);
    expect(await grants.findCode(code.codeHash, now)).toEqual(code);
    expect((await grants.redeemCode(code.codeHash, issued, now, now + 600_000)).status).toBe('redeemed');
    const next = await userRefresh(now + 1, code.grantId, userId);
    expect(await grants.findRefreshToken(issued.tokenHash, now + 1)).toEqual(issued);
    expect(await grants.rotateRefreshToken(issued.tokenHash, next, now + 1)).toEqual({
      status: 'rotated',
      previous: issued,
    });
    expect(await grants.listUserRefreshTokens!(userId, now + 2)).toEqual([next]);
  };

  it('answers a re-run of the same redeem or rotate call like the first run, writing nothing more', async () => {
    // ioredis re-sends a script whose reply a dropped connection lost; the re-run carries the
    // call's nonce (the new refresh token's hash) and must not be mistaken for a replay.
    const now = Date.now();
    const code = await codeOf(now);
    await storage.grants.saveCode(code);
    const refresh = await refreshOf(now, code.grantId);
    const codeKeys = [
      grantKey(code.grantId, `code:${code.codeHash}`),
      grantKey(code.grantId, 'revoked'),
      grantKey(code.grantId, `rt:${refresh.tokenHash}`),
    ];
    const redeemArgs = [
      now,
      code.grantId,
      refresh.tokenHash,
      '',
      now + 600_000,
      '{}',
      now + 3_600_000,
      code.grantId,
    ];
    const first = (await redeemCodeScript.run(storage.client, codeKeys, redeemArgs)) as string[];
    const again = (await redeemCodeScript.run(storage.client, codeKeys, redeemArgs)) as string[];
    expect(first[0]).toBe('redeemed');
    expect(again).toEqual(first);
    // Another call (another nonce) is a replay.
    const other = [...redeemArgs.slice(0, 2), 'other-nonce', ...redeemArgs.slice(3)];
    expect(((await redeemCodeScript.run(storage.client, codeKeys, other)) as string[])[0]).toBe('replayed');

    const next = await refreshOf(now, code.grantId);
    await storage.grants.saveRefreshToken(refresh);
    const rotateKeys = [codeKeys[2]!, codeKeys[1]!, grantKey(code.grantId, `rt:${next.tokenHash}`)];
    // What the store writes before the script: the next token's pointer to its grant.
    await storage.client.set(key(`rt:${next.tokenHash}`), pointerValue(code.grantId, 'u'));
    const rotateArgs = [
      now,
      code.grantId,
      next.tokenHash,
      '',
      JSON.stringify(next),
      now + 3_600_000,
      code.grantId,
      refresh.tokenHash,
    ];
    expect(await rotateRefreshTokenScript.run(storage.client, rotateKeys, rotateArgs)).toEqual(
      await rotateRefreshTokenScript.run(storage.client, rotateKeys, rotateArgs),
    );
    expect(await storage.grants.findRefreshToken(next.tokenHash, now)).toEqual(next);
    const reused = await storage.grants.rotateRefreshToken(
      refresh.tokenHash,
      await refreshOf(now, code.grantId),
      now,
    );
    expect(reused.status).toBe('reused');
  });

  it('redeems once when the reply of the redeem script is lost and ioredis re-sends it', async () => {
    const proxy = await replyDroppingProxy(new URL(url!));
    const viaProxy = redisStorage({ url: `redis://127.0.0.1:${proxy.port}`, prefix });
    try {
      await viaProxy.ready();
      const now = Date.now();
      const code = await codeOf(now);
      await viaProxy.grants.saveCode(code);
      const refresh = await refreshOf(now, code.grantId);
      proxy.dropNextScriptReply();
      const result = await viaProxy.grants.redeemCode(code.codeHash, refresh, now, now + 600_000);
      expect(proxy.dropped()).toBe(true);
      expect(result.status).toBe('redeemed');
      expect(await viaProxy.grants.findRefreshToken(refresh.tokenHash, now)).toEqual(refresh);
    } finally {
      await viaProxy.close();
      await proxy.close();
    }
  });

  it('rotates once when the reply of the rotation is lost and ioredis re-sends what it sent with it', async () => {
    // After a lookup the next token's pointer, its index entry and the script go out together.
    const proxy = await replyDroppingProxy(new URL(url!));
    const viaProxy = redisStorage({ url: `redis://127.0.0.1:${proxy.port}`, prefix });
    try {
      await viaProxy.ready();
      const now = Date.now();
      const userId = crypto.randomUUID();
      const grantId = crypto.randomUUID();
      const [token, next] = [
        await userRefresh(now, grantId, userId),
        await userRefresh(now, grantId, userId),
      ];
      await viaProxy.grants.saveRefreshToken(token);
      expect(await viaProxy.grants.findRefreshToken(token.tokenHash, now)).toEqual(token);
      proxy.dropNextScriptReply();
      const result = await viaProxy.grants.rotateRefreshToken(token.tokenHash, next, now);
      expect(proxy.dropped()).toBe(true);
      expect(result).toEqual({ status: 'rotated', previous: token });
      expect(await viaProxy.grants.findRefreshToken(next.tokenHash, now)).toEqual(next);
      expect(await viaProxy.grants.listUserRefreshTokens!(userId, now)).toEqual([next]);
    } finally {
      await viaProxy.close();
      await proxy.close();
    }
  });

  it('looks a token or code up in one round trip and consumes it in one, on a single server', async () => {
    const proxy = await roundTripCountingProxy(new URL(url!));
    const viaProxy = redisStorage({ url: `redis://127.0.0.1:${proxy.port}`, prefix });
    try {
      await viaProxy.ready();
      const now = Date.now();
      const userId = crypto.randomUUID();
      const code = { ...(await codeOf(now)), userId };
      const [issued, next] = [
        await userRefresh(now, code.grantId, userId),
        await userRefresh(now, code.grantId, userId),
      ];
      await viaProxy.grants.saveCode(code);
      const counted = async (call: () => Promise<unknown>) => {
        proxy.take();
        await call();
        return proxy.take();
      };
      expect(await counted(() => viaProxy.grants.findCode(code.codeHash, now))).toBe(1);
      expect(await counted(() => viaProxy.grants.redeemCode(code.codeHash, issued, now, now + 600_000))).toBe(
        1,
      );
      expect(await counted(() => viaProxy.grants.findRefreshToken(issued.tokenHash, now))).toBe(1);
      expect(await counted(() => viaProxy.grants.rotateRefreshToken(issued.tokenHash, next, now))).toBe(1);
      expect(await viaProxy.grants.listUserRefreshTokens!(userId, now)).toEqual([next]);
    } finally {
      await viaProxy.close();
      await proxy.close();
    }
  });

  it('exchanges a code and then its refresh token in one round trip each, on a single server', async () => {
    const proxy = await roundTripCountingProxy(new URL(url!));
    const viaProxy = redisStorage({ url: `redis://127.0.0.1:${proxy.port}`, prefix });
    try {
      await viaProxy.ready();
      // A script's first run on a server costs one NOSCRIPT answer and one EVAL more (not counted,
      // README): both exchanges run once before counting, so a fresh server counts as a warm one.
      const warm = await codeOf(Date.now());
      await viaProxy.grants.saveCode(warm);
      const spare = { tokenHash: await hashSecret(crypto.randomUUID()), expiresAt: Date.now() + 3_600_000 };
      await viaProxy.grants.exchangeCode!(
        warm.codeHash,
        {
          clientId: 'another-client',
          redirectUri: warm.redirectUri,
          redirectUriFitsDefault: false,
          keepUntil: Date.now() + 600_000,
          refreshToken: spare,
        },
        Date.now(),
      );
      await viaProxy.grants.exchangeRefreshToken!(
        spare.tokenHash,
        { clientId: 'another-client', next: spare },
        Date.now(),
      );
      const now = Date.now();
      const userId = crypto.randomUUID();
      // Braces and % in the grant id: the script builds the grant's keys as keyLayout does.
      const code = { ...(await codeOf(now)), userId, grantId: `g{%}${crypto.randomUUID()}`, scope: 'read' };
      await viaProxy.grants.saveCode(code);
      const counted = async <T>(call: () => Promise<T>) => {
        proxy.take();
        const result = await call();
        return { result, roundTrips: proxy.take() };
      };
      const issued = { tokenHash: await hashSecret(crypto.randomUUID()), expiresAt: now + 3_600_000 };
      const exchange = {
        clientId: code.clientId,
        redirectUri: code.redirectUri,
        redirectUriFitsDefault: false,
        keepUntil: now + 600_000,
        refreshToken: issued,
      };
      const redeemed = await counted(() => viaProxy.grants.exchangeCode!(code.codeHash, exchange, now));
      expect(redeemed).toEqual({
        result: {
          status: 'redeemed',
          code: { ...code, consumedAt: now, expiresAt: now + 600_000 },
          refreshTokenStored: true,
        },
        roundTrips: 1,
      });
      const next = { tokenHash: await hashSecret(crypto.randomUUID()), expiresAt: now + 7_200_000 };
      const rotated = await counted(() =>
        viaProxy.grants.exchangeRefreshToken!(issued.tokenHash, { clientId: code.clientId, next }, now + 1),
      );
      expect(rotated.roundTrips).toBe(1);
      expect(rotated.result.status).toBe('rotated');
      const successor = {
        tokenHash: next.tokenHash,
        issuedAt: now + 1,
        expiresAt: next.expiresAt,
        grantId: code.grantId,
        clientId: code.clientId,
        subject: { kind: 'user', userId },
        scope: 'read',
        authTime: now,
        grantedAt: now,
      };
      // The user's index follows: the rotated token's entry left with the rotation.
      expect(await viaProxy.grants.listUserRefreshTokens!(userId, now + 2)).toEqual([successor]);
      const index = await viaProxy.client.zrange(
        keyLayout(prefix, 'default').userRefreshTokens(userId),
        0,
        -1,
      );
      expect(index).toEqual([pointerValue(code.grantId, next.tokenHash)]);
      // Refusals and reuse cost one round trip too, and write nothing.
      const refused = await counted(() =>
        viaProxy.grants.exchangeRefreshToken!(next.tokenHash, { clientId: 'other', next: issued }, now + 2),
      );
      expect(refused).toEqual({ result: { status: 'refused', reason: 'client' }, roundTrips: 1 });
      const reused = await counted(() =>
        viaProxy.grants.exchangeRefreshToken!(
          issued.tokenHash,
          { clientId: code.clientId, next: issued },
          now + 2,
        ),
      );
      expect(reused.result.status).toBe('reused');
      expect(reused.roundTrips).toBe(1);
      // The consumed code no longer holds its refresh template.
      const codeKey = keyLayout(prefix, 'default').code(code.grantId, code.codeHash);
      expect(await viaProxy.client.hmget(codeKey, 't', 'x')).toEqual([null, null]);
      // A replay (another call: its own refresh token hash), and each refusal the code's members
      // decide, is one round trip that writes nothing.
      const replay = {
        ...exchange,
        refreshToken: { tokenHash: await hashSecret(crypto.randomUUID()), expiresAt: now + 3_600_000 },
      };
      expect(await counted(() => viaProxy.grants.exchangeCode!(code.codeHash, replay, now + 3))).toEqual({
        result: {
          status: 'replayed',
          code: { ...code, consumedAt: now, expiresAt: now + 600_000 },
        },
        roundTrips: 1,
      });
      const fresh = {
        ...(await codeOf(now)),
        userId,
        scope: 'openid read',
        codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      };
      await viaProxy.grants.saveCode(fresh);
      const unstored = { tokenHash: await hashSecret(crypto.randomUUID()), expiresAt: now + 3_600_000 };
      const freshExchange = { ...exchange, verifierChallenge: fresh.codeChallenge, refreshToken: unstored };
      for (const [change, reason] of [
        [{ clientId: 'c2' }, 'client'],
        [{ clientId: 'c"' }, 'client'],
        [{ redirectUri: `${fresh.redirectUri}/` }, 'redirect_uri'],
        [{ redirectUri: undefined, redirectUriFitsDefault: true }, 'redirect_uri'],
        [{ verifierChallenge: undefined }, 'code_verifier_missing'],
        [{ verifierChallenge: `${fresh.codeChallenge}x` }, 'code_verifier_mismatch'],
      ] as const)
        expect(
          await counted(() =>
            viaProxy.grants.exchangeCode!(fresh.codeHash, { ...freshExchange, ...change }, now),
          ),
        ).toEqual({ result: { status: 'refused', reason }, roundTrips: 1 });
      // `openid` without `offline_access` stores no refresh token (OpenID Connect Core §11).
      expect(await counted(() => viaProxy.grants.exchangeCode!(fresh.codeHash, freshExchange, now))).toEqual({
        result: {
          status: 'redeemed',
          code: { ...fresh, consumedAt: now, expiresAt: now + 600_000 },
          refreshTokenStored: false,
        },
        roundTrips: 1,
      });
      expect(await viaProxy.grants.findRefreshToken(unstored.tokenHash, now + 3)).toBeNull();
      // A code without PKCE refuses a verifier (a downgrade), also by position.
      const plain = { ...(await codeOf(now)), userId, redirectUri: '' };
      await viaProxy.grants.saveCode(plain);
      expect(
        await counted(() =>
          viaProxy.grants.exchangeCode!(
            plain.codeHash,
            { ...freshExchange, redirectUri: undefined, redirectUriFitsDefault: true },
            now,
          ),
        ),
      ).toEqual({ result: { status: 'refused', reason: 'code_verifier_unexpected' }, roundTrips: 1 });
    } finally {
      await viaProxy.close();
      await proxy.close();
    }
  });

  it('rotates a refresh token of the layout before `clientId` came fourth in two calls, its successor in one', async () => {
    const proxy = await roundTripCountingProxy(new URL(url!));
    const viaProxy = redisStorage({ url: `redis://127.0.0.1:${proxy.port}`, prefix });
    try {
      await viaProxy.ready();
      const now = Date.now();
      const userId = crypto.randomUUID();
      const token = { ...(await userRefresh(now, crypto.randomUUID(), userId)), ext: { dpopJkt: 'k' } };
      await viaProxy.grants.saveRefreshToken(token);
      // As the previous version wrote it: the hash, issue time and expiry first, then the record's order.
      const { tokenHash, issuedAt, expiresAt, ...rest } = token;
      const key = grantKey(token.grantId, `rt:${tokenHash}`);
      await viaProxy.client.hset(key, 'r', JSON.stringify({ tokenHash, issuedAt, expiresAt, ...rest }));
      expect(JSON.parse((await viaProxy.client.hget(key, 'r'))!)).toEqual(token);
      const counted = async <T>(call: () => Promise<T>) => {
        proxy.take();
        const result = await call();
        return { result, roundTrips: proxy.take() };
      };
      const next = { tokenHash: await hashSecret(crypto.randomUUID()), expiresAt: now + 7_200_000 };
      const first = await counted(() =>
        viaProxy.grants.exchangeRefreshToken!(
          tokenHash,
          { clientId: token.clientId, dpopJkt: 'k', next },
          now + 1,
        ),
      );
      expect(first.result).toEqual({ status: 'rotated', previous: token });
      expect(first.roundTrips).toBeGreaterThan(1);
      // The successor is written in the new layout: its rotation (a bound one: the record is
      // decoded for its key) and a refusal are one round trip each.
      const successorKey = grantKey(token.grantId, `rt:${next.tokenHash}`);
      expect(
        (await viaProxy.client.hget(successorKey, 'r'))!.startsWith(
          `{"tokenHash":"${next.tokenHash}","issuedAt":${now + 1},"expiresAt":${next.expiresAt},"clientId":"c",`,
        ),
      ).toBe(true);
      const third = { tokenHash: await hashSecret(crypto.randomUUID()), expiresAt: now + 7_200_000 };
      expect(
        await counted(() =>
          viaProxy.grants.exchangeRefreshToken!(next.tokenHash, { clientId: 'c', next: third }, now + 2),
        ),
      ).toEqual({ result: { status: 'refused', reason: 'dpop_key' }, roundTrips: 1 });
      const second = await counted(() =>
        viaProxy.grants.exchangeRefreshToken!(
          next.tokenHash,
          { clientId: 'c', dpopJkt: 'k', next: third },
          now + 2,
        ),
      );
      expect(second).toEqual({
        result: {
          status: 'rotated',
          previous: { ...token, tokenHash: next.tokenHash, issuedAt: now + 1, expiresAt: next.expiresAt },
        },
        roundTrips: 1,
      });
      // A user's mark covering the token's issue time makes it invalid, read from the same layout.
      await viaProxy.grants.revokeSubject!(userId, now + 2, now + 60_000);
      const fourth = { tokenHash: await hashSecret(crypto.randomUUID()), expiresAt: now + 7_200_000 };
      expect(
        await counted(() =>
          viaProxy.grants.exchangeRefreshToken!(
            third.tokenHash,
            { clientId: 'c', dpopJkt: 'k', next: fourth },
            now + 3,
          ),
        ),
      ).toEqual({ result: { status: 'invalid' }, roundTrips: 1 });
    } finally {
      await viaProxy.close();
      await proxy.close();
    }
  });

  it('reads the members of a record where its layout puts them, never from what the record nests', async () => {
    // A code of an earlier layout (its members in the record's order) whose `ext` nests, before
    // the code's own `authTime`, the members the one-step script reads: a client's authorization
    // details can hold any JSON. The exchange must judge the code's own members.
    const now = Date.now();
    const userId = crypto.randomUUID();
    const lure = {
      type: 'x',
      authTime: now + 60_000,
      clientId: 'evil',
      redirectUri: 'https://evil.example/cb',
    };
    const { codeHash, authTime, ...rest } = {
      ...(await codeOf(now - 10)),
      userId,
      ext: { authorizationDetails: [lure] },
    };
    const code = { codeHash, ...rest, authTime };
    await storage.grants.saveCode(code);
    await storage.client.hset(grantKey(code.grantId, `code:${codeHash}`), 'r', JSON.stringify(code));
    const exchange = (clientId: string, redirectUri: string) =>
      storage.grants.exchangeCode!(
        codeHash,
        {
          clientId,
          redirectUri,
          redirectUriFitsDefault: false,
          keepUntil: now + 600_000,
          refreshToken: { tokenHash: crypto.randomUUID(), expiresAt: now + 3_600_000 },
        },
        now,
      );
    expect(await exchange('evil', lure.redirectUri)).toEqual({ status: 'refused', reason: 'client' });
    // A user's mark covering the code's own authentication time, not the nested one, revokes it.
    await storage.grants.revokeSubject!(userId, now - 5, now + 60_000);
    expect(await exchange(code.clientId, code.redirectUri)).toEqual({ status: 'invalid' });
  });

  it('exchanges records an earlier version wrote, and binds a successor anew, in two calls', async () => {
    const now = Date.now();
    const userId = crypto.randomUUID();
    // A code without the refresh template, and a refresh token whose JSON starts with its grant id.
    const code = { ...(await codeOf(now)), userId, scope: 'read', ext: { note: [] } };
    await storage.grants.saveCode(code);
    await storage.client.hdel(grantKey(code.grantId, `code:${code.codeHash}`), 't', 'x');
    const issued = { tokenHash: await hashSecret(crypto.randomUUID()), expiresAt: now + 3_600_000 };
    const redeemed = await storage.grants.exchangeCode!(
      code.codeHash,
      {
        clientId: code.clientId,
        redirectUri: code.redirectUri,
        redirectUriFitsDefault: false,
        keepUntil: now + 600_000,
        refreshToken: issued,
      },
      now,
    );
    expect(redeemed.status === 'redeemed' && redeemed.refreshTokenStored).toBe(true);
    const stored = (await storage.grants.findRefreshToken(issued.tokenHash, now))!;
    expect(stored.ext).toEqual({ note: [] });
    const { tokenHash, ...rest } = stored;
    await storage.client.hset(
      grantKey(code.grantId, `rt:${tokenHash}`),
      'r',
      JSON.stringify({ ...rest, tokenHash }),
    );
    const next = { tokenHash: await hashSecret(crypto.randomUUID()), expiresAt: now + 7_200_000 };
    expect(
      await storage.grants.exchangeRefreshToken!(
        issued.tokenHash,
        { clientId: code.clientId, next },
        now + 1,
      ),
    ).toEqual({ status: 'rotated', previous: stored });
    // A public client's first proof binds the successor: the one-step script leaves it to the store.
    const bound = {
      tokenHash: await hashSecret(crypto.randomUUID()),
      expiresAt: now + 7_200_000,
      dpopJkt: 'k',
    };
    expect(
      (
        await storage.grants.exchangeRefreshToken!(
          next.tokenHash,
          { clientId: code.clientId, dpopJkt: 'k', next: bound },
          now + 2,
        )
      ).status,
    ).toBe('rotated');
    expect((await storage.grants.findRefreshToken(bound.tokenHash, now + 2))?.ext).toEqual({
      note: [],
      dpopJkt: 'k',
    });
  });

  it('answers a re-run of the same exchange like the first run, writing nothing more', async () => {
    const now = Date.now();
    const token = await userRefresh(now, crypto.randomUUID(), crypto.randomUUID());
    await storage.grants.saveRefreshToken(token);
    const keys = keyLayout(prefix, 'default');
    const next = await hashSecret(crypto.randomUUID());
    const run = () =>
      defaultGrantScripts.exchangeRefreshToken.run(
        storage.client,
        [keys.refreshTokenPointer(token.tokenHash), keys.refreshTokenPointer(next)],
        [
          String(now),
          keys.base,
          `:rt:${token.tokenHash}`,
          token.clientId,
          '',
          next,
          String(now + 3_600_000),
          '',
          JSON.stringify(token.clientId),
        ],
      );
    const first = (await run()) as string[];
    expect(first[0]).toBe('rotated');
    expect(await run()).toEqual(first);
    expect(
      (
        await storage.grants.exchangeRefreshToken!(
          token.tokenHash,
          { clientId: token.clientId, next: { tokenHash: await hashSecret('x'), expiresAt: now + 1000 } },
          now,
        )
      ).status,
    ).toBe('reused');
  });

  it('answers a re-run of the same code exchange like the first run, whether it stored a refresh token or not', async () => {
    const now = Date.now();
    const keys = keyLayout(prefix, 'default');
    for (const [scope, stored] of [
      ['read', '1'],
      ['openid read', '0'],
    ] as const) {
      const code = { ...(await codeOf(now)), userId: crypto.randomUUID(), scope };
      await storage.grants.saveCode(code);
      const mint = await hashSecret(crypto.randomUUID());
      const run = () =>
        defaultGrantScripts.exchangeCode.run(
          storage.client,
          [keys.codePointer(code.codeHash), keys.refreshTokenPointer(mint)],
          [
            String(now),
            keys.base,
            `:code:${code.codeHash}`,
            mint,
            String(now + 600_000),
            JSON.stringify(code.clientId),
            JSON.stringify(code.redirectUri),
            '0',
            '',
            '',
            mint,
            String(now + 3_600_000),
            '',
          ],
        );
      const first = (await run()) as string[];
      expect([first[0], first[3]]).toEqual(['redeemed', stored]);
      expect(await run()).toEqual(first);
      // Another call is a replay.
      const replay = await storage.grants.exchangeCode!(
        code.codeHash,
        {
          clientId: code.clientId,
          redirectUri: code.redirectUri,
          redirectUriFitsDefault: false,
          keepUntil: now + 600_000,
          refreshToken: { tokenHash: await hashSecret(crypto.randomUUID()), expiresAt: now + 3_600_000 },
        },
        now,
      );
      expect(replay.status).toBe('replayed');
    }
  });

  it('finds the records of a grant id with braces and % in one step, as the key layout places them', async () => {
    // The lookup script builds the grant's keys in Lua (keys.ts LUA_KEYS): it must agree with keyLayout.
    const now = Date.now();
    const userId = `u{${crypto.randomUUID()}}`;
    const grantId = `g{%7B}%${crypto.randomUUID()}`;
    const code = { ...(await codeOf(now)), userId, grantId };
    await storage.grants.saveCode(code);
    expect(await storage.grants.findCode(code.codeHash, now)).toEqual(code);
    const token = await userRefresh(now, grantId, userId);
    await storage.grants.saveRefreshToken(token);
    expect(await storage.grants.findRefreshToken(token.tokenHash, now)).toEqual(token);
    // The grant's marker and the user's mark are read from their keys too.
    await storage.grants.revokeGrant(grantId, now + 60_000);
    expect(await storage.grants.findRefreshToken(token.tokenHash, now)).toBeNull();
    const other = await userRefresh(now - 10, `g}${crypto.randomUUID()}`, userId);
    await storage.grants.saveRefreshToken(other);
    expect(await storage.grants.findRefreshToken(other.tokenHash, now)).toEqual(other);
    await storage.grants.revokeSubject!(userId, now, now + 60_000);
    expect(await storage.grants.findRefreshToken(other.tokenHash, now)).toBeNull();
  });

  it('falls back to two round trips on a server that refuses keys a script does not name', async () => {
    // Dragonfly refuses them by default: the first refusal switches the store to the Cluster path.
    const refusing = new Proxy(storage.client, {
      get(target, property) {
        const value = Reflect.get(target, property);
        if (property === 'evalsha' || property === 'eval')
          return (...args: unknown[]) =>
            // The lookup script (marker `rot`) and the one-step exchange (`:rt:<hash>`).
            args.includes('rot') || args.some((arg) => typeof arg === 'string' && arg.startsWith(':rt:'))
              ? Promise.reject(new Error('ERR script tried accessing undeclared key'))
              : (value as (...a: unknown[]) => unknown).apply(target, args);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const store = redisStorage({ client: refusing, prefix });
    const now = Date.now();
    const token = await userRefresh(now, crypto.randomUUID(), crypto.randomUUID());
    await store.grants.saveRefreshToken(token);
    expect(await store.grants.findRefreshToken(token.tokenHash, now)).toEqual(token);
    expect(await store.grants.findRefreshToken(token.tokenHash, now)).toEqual(token);
    // The exchange takes the two-call path there too.
    const next = { tokenHash: await hashSecret(crypto.randomUUID()), expiresAt: now + 3_600_000 };
    const fresh = redisStorage({ client: refusing, prefix });
    expect(
      await fresh.grants.exchangeRefreshToken!(token.tokenHash, { clientId: token.clientId, next }, now),
    ).toEqual({ status: 'rotated', previous: token });
    expect((await fresh.grants.findRefreshToken(next.tokenHash, now))?.issuedAt).toBe(now);
    await fresh.close();
    await store.close();
  });

  it('consumes in one command on a single server: a losing rotation writes no pointer nor index entry', async () => {
    const now = Date.now();
    const userId = crypto.randomUUID();
    const grantId = crypto.randomUUID();
    const [token, winner, loser] = [
      await userRefresh(now, grantId, userId),
      await userRefresh(now, grantId, userId),
      await userRefresh(now, grantId, userId),
    ];
    await storage.grants.saveRefreshToken(token);
    const sent: string[] = [];
    const counting = new Proxy(storage.client, {
      get(target, property) {
        const value = Reflect.get(target, property);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          sent.push(String(property));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const store = redisStorage({ client: counting, prefix });
    expect(await store.grants.findRefreshToken(token.tokenHash, now)).toEqual(token);
    sent.length = 0;
    expect((await store.grants.rotateRefreshToken(token.tokenHash, winner, now)).status).toBe('rotated');
    expect(sent).toEqual(['evalsha']);
    expect(await store.grants.findRefreshToken(token.tokenHash, now)).toMatchObject({ rotatedAt: now });
    expect((await store.grants.rotateRefreshToken(token.tokenHash, loser, now)).status).toBe('reused');
    expect(await storage.client.exists(key(`rt:${loser.tokenHash}`))).toBe(0);
    expect(await storage.client.zrange(key(`grants:${userId}`), 0, -1)).not.toContain(
      pointerValue(grantId, loser.tokenHash),
    );
    expect(await storage.grants.findRefreshToken(winner.tokenHash, now)).toEqual(winner);
    await store.close();
  });

  it('writes the pointer and index entry first, from then on, where a server enforces slots', async () => {
    // A sharding proxy in front of a single connection refuses a script naming keys of several
    // slots before running it: the store then writes them first, as on a Cluster.
    let refused = 0;
    const enforcing = new Proxy(storage.client, {
      get(target, property) {
        const value = Reflect.get(target, property);
        if (property === 'evalsha' || property === 'eval')
          return (...args: unknown[]) => {
            if (Number(args[1]) > 3) {
              refused++;
              return Promise.reject(new Error("CROSSSLOT Keys in request don't hash to the same slot"));
            }
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const store = redisStorage({ client: enforcing, prefix });
    await expectRedeemedThenRotated(store.grants);
    expect(refused).toBe(1);
    await store.close();
  });

  it("drops a rotated token's index entry at the next rotation, and a listing drops the rest", async () => {
    const now = Date.now();
    const userId = crypto.randomUUID();
    const grantId = crypto.randomUUID();
    const tokens = [
      await userRefresh(now, grantId, userId),
      await userRefresh(now + 1, grantId, userId),
      await userRefresh(now + 2, grantId, userId),
    ];
    await storage.grants.saveRefreshToken(tokens[0]!);
    for (const i of [1, 2]) {
      // As the token endpoint does: look the token up, then rotate it at the same instant.
      expect(await storage.grants.findRefreshToken(tokens[i - 1]!.tokenHash, now + i)).not.toBeNull();
      const result = await storage.grants.rotateRefreshToken(tokens[i - 1]!.tokenHash, tokens[i]!, now + i);
      expect(result.status).toBe('rotated');
    }
    const index = () => storage.client.zrange(key(`grants:${userId}`), 0, -1);
    const entry = (token: { tokenHash: string }) => pointerValue(grantId, token.tokenHash);
    expect((await index()).sort()).toEqual([entry(tokens[1]!), entry(tokens[2]!)].sort());
    expect(await storage.grants.listUserRefreshTokens!(userId, now + 3)).toEqual([tokens[2]]);
    expect(await index()).toEqual([entry(tokens[2]!)]);
  });

  it('keeps the winner of concurrent rotations in the index, whatever the losers wrote', async () => {
    const now = Date.now();
    const userId = crypto.randomUUID();
    const grantId = crypto.randomUUID();
    const first = await userRefresh(now, grantId, userId);
    const second = await userRefresh(now + 1, grantId, userId);
    await storage.grants.saveRefreshToken(first);
    await storage.grants.findRefreshToken(first.tokenHash, now + 1);
    await storage.grants.rotateRefreshToken(first.tokenHash, second, now + 1);
    const candidates = await Promise.all(
      Array.from({ length: 8 }, () => userRefresh(now + 2, grantId, userId)),
    );
    const results = await Promise.all(
      candidates.map(async (next) => {
        await storage.grants.findRefreshToken(second.tokenHash, now + 2);
        return storage.grants.rotateRefreshToken(second.tokenHash, next, now + 2);
      }),
    );
    const winners = candidates.filter((_, i) => results[i]!.status === 'rotated');
    expect(winners).toHaveLength(1);
    expect(await storage.grants.listUserRefreshTokens!(userId, now + 3)).toEqual(winners);
  });

  it('a rotation after this store wrote a mark covering the token is refused, though looked up before', async () => {
    const now = Date.now();
    const userId = crypto.randomUUID();
    const grantId = crypto.randomUUID();
    const token = await userRefresh(now - 10, grantId, userId);
    await storage.grants.saveRefreshToken(token);
    expect(await storage.grants.findRefreshToken(token.tokenHash, now)).toEqual(token);
    await storage.grants.revokeSubject!(userId, now, now + 60_000);
    const next = await userRefresh(now, grantId, userId);
    expect(await storage.grants.rotateRefreshToken(token.tokenHash, next, now)).toEqual({
      status: 'invalid',
    });
  });

  it('rejects a fractional time inside a script before writing anything', async () => {
    const now = Date.now();
    const code = await codeOf(now);
    const refresh = await refreshOf(now, code.grantId);
    await storage.grants.saveRefreshToken(refresh);
    const next = await refreshOf(now, code.grantId);
    const keys = [
      grantKey(code.grantId, `rt:${refresh.tokenHash}`),
      grantKey(code.grantId, 'revoked'),
      grantKey(code.grantId, `rt:${next.tokenHash}`),
    ];
    await expect(
      rotateRefreshTokenScript.run(storage.client, keys, [
        now,
        code.grantId,
        'n',
        '',
        '{}',
        now + 1000.5,
        code.grantId,
        refresh.tokenHash,
      ]),
    ).rejects.toThrow('whole milliseconds');
    expect(await storage.grants.findRefreshToken(refresh.tokenHash, now)).toEqual(refresh);
    expect(await storage.client.exists(keys[3]!)).toBe(0);
  });

  /** The grant store of the instance `default` on `scripts` (Redis 7's index path, or 6.2's). */
  const grantsWith = (scripts: GrantScripts) =>
    redisGrantStore(
      storage.client,
      keyLayout(prefix, 'default'),
      revocationHub(storage.client, prefix),
      scripts,
    );

  /** Looks `token` up and rotates it to `next` at `now`, as the token endpoint does. */
  const rotate = async (
    grants: GrantStore,
    token: { tokenHash: string },
    next: RefreshTokenRecord,
    now: number,
  ) => {
    expect(await grants.findRefreshToken(token.tokenHash, now)).not.toBeNull();
    expect((await grants.rotateRefreshToken(token.tokenHash, next, now)).status).toBe('rotated');
  };

  // Redis 6.2 has no `PEXPIREAT … GT`: its path sets the index's expiry to its latest entry's, which
  // a dropped entry can move earlier; Redis 7's only ever moves it later (the key outlives a dropped
  // latest entry until that entry's own expiry). Both keep the key while any live entry remains.
  for (const [path, scripts, droppedLatestKept] of [
    ['Redis 7 (PEXPIREAT GT)', grantScripts('auto'), true],
    ['Redis 6.2', grantScripts('never'), false],
  ] as const) {
    it(`keeps a user's index until its latest entry expires, on ${path}'s path`, async () => {
      const grants = grantsWith(scripts);
      const now = Date.now();
      const userId = crypto.randomUUID();
      const grantId = crypto.randomUUID();
      const index = key(`grants:${userId}`);
      const expiryOfIndex = async () => Number(await storage.client.call('PEXPIRETIME', index));
      const token = async (issuedAt: number, lifetime: number) => ({
        ...(await userRefresh(issuedAt, grantId, userId)),
        expiresAt: now + lifetime,
      });
      const first = await token(now, 7_200_000);
      await grants.saveRefreshToken(first);
      expect(await expiryOfIndex()).toBe(first.expiresAt);
      // An entry expiring earlier leaves the expiry as it is.
      const second = await token(now + 1, 3_600_000);
      await rotate(grants, first, second, now + 1);
      expect(await expiryOfIndex()).toBe(first.expiresAt);
      // The next rotation drops `first`, the latest entry.
      const third = await token(now + 2, 3_600_001);
      await rotate(grants, second, third, now + 2);
      expect((await storage.client.zrange(index, 0, -1)).sort()).toEqual(
        [pointerValue(grantId, second.tokenHash), pointerValue(grantId, third.tokenHash)].sort(),
      );
      expect(await expiryOfIndex()).toBe(droppedLatestKept ? first.expiresAt : third.expiresAt);
      // A later entry moves it later.
      const fourth = await token(now + 3, 10_800_000);
      await rotate(grants, third, fourth, now + 3);
      expect(await expiryOfIndex()).toBe(fourth.expiresAt);
      expect(await grants.listUserRefreshTokens!(userId, now + 4)).toEqual([fourth]);
    });
  }

  it('a rotation into a key that holds a record replaces that record whole', async () => {
    const now = Date.now();
    const userId = crypto.randomUUID();
    const grantId = crypto.randomUUID();
    const token = await userRefresh(now, grantId, userId);
    const next = await userRefresh(now + 1, grantId, userId);
    await storage.grants.saveRefreshToken(token);
    // A rotated record already at the next token's key: its marker must not survive the rotation.
    await storage.grants.saveRefreshToken({ ...next, scope: 'stale', rotatedAt: now });
    await rotate(storage.grants, token, next, now + 1);
    expect(await storage.grants.findRefreshToken(next.tokenHash, now + 1)).toEqual(next);
  });

  it('answers the record its lookup parsed, unless the rotation read another one', async () => {
    const now = Date.now();
    const grantId = crypto.randomUUID();
    const token = await refreshOf(now, grantId);
    await storage.grants.saveRefreshToken(token);
    const found = await storage.grants.findRefreshToken(token.tokenHash, now);
    const result = await storage.grants.rotateRefreshToken(
      token.tokenHash,
      await refreshOf(now, grantId),
      now,
    );
    expect(result.status === 'rotated' && result.previous).toBe(found);
    // The record replaced between the lookup and the rotation: the rotation answers what it rotated.
    const other = await refreshOf(now, grantId);
    await storage.grants.saveRefreshToken(other);
    await storage.grants.findRefreshToken(other.tokenHash, now);
    const replaced = { ...other, scope: 'replaced' };
    await storage.grants.saveRefreshToken(replaced);
    expect(
      await storage.grants.rotateRefreshToken(other.tokenHash, await refreshOf(now, grantId), now),
    ).toEqual({
      status: 'rotated',
      previous: replaced,
    });
  });

  it('refuses a write no replica acknowledged within waitForReplicas.timeoutMs, and lets reads through', async () => {
    // REDIS_URL has no replica: the write lands on the server, but is never acknowledged as done.
    const waiting = redisStorage({ url: url!, prefix, waitForReplicas: { replicas: 1, timeoutMs: 50 } });
    try {
      await waiting.ready();
      const jti = crypto.randomUUID();
      await expect(waiting.grants.revokeAccessToken(jti, Date.now() + 60_000)).rejects.toThrow(
        'a write reached 0 of the 1 replicas required within 50 ms',
      );
      expect(await waiting.grants.isRevoked(jti, undefined, Date.now())).toBe(true);
    } finally {
      await waiting.close();
    }
  });

  it('rejects a prefix with braces (the engine adds the cluster hash tag itself)', () => {
    expect(() => redisStorage({ client: storage.client, prefix: '{tag}' })).toThrow(TypeError);
  });
});

describe('redis engine without a server', () => {
  it('takes one of url, cluster and sentinel, each well formed', () => {
    const url = 'redis://127.0.0.1:1';
    expect(() => redisStorage({})).toThrow('give `client`, or one of `url`, `cluster` and `sentinel`');
    expect(() => redisStorage({ url, cluster: ['127.0.0.1:7000'] })).toThrow('one of `url`, `cluster`');
    expect(() => redisStorage({ cluster: [] })).toThrow('`cluster` lists no node');
    expect(() => redisStorage({ cluster: ['127.0.0.1'] })).toThrow('"127.0.0.1" is not host:port');
    expect(() => redisStorage({ sentinel: { sentinels: [], name: 'm' } })).toThrow('lists no Sentinel');
    expect(() => redisStorage({ cluster: ['127.0.0.1:7000'], waitForReplicas: { replicas: 1 } })).toThrow(
      '`waitForReplicas` is for a single server, not a Cluster',
    );
    expect(() => redisStorage({ url, waitForReplicas: { replicas: 0 } })).toThrow('whole `replicas` ≥ 1');
  });

  it('fails commands at once instead of queueing them while Redis is unreachable', async () => {
    const port = await closedPort();
    const storage = redisStorage({ url: `redis://127.0.0.1:${port}`, prefix: 'unreachable' });
    try {
      await expect(storage.grants.isRevoked('jti', 'grant', Date.now())).rejects.toThrow();
      await expect(storage.kv.get('session:hash', Date.now())).rejects.toThrow();
      await expect(storage.ready(200)).rejects.toThrow('redis not ready after 200 ms');
    } finally {
      await storage.close();
    }
  });
});

/**
 * A TCP proxy to Redis that, once armed, swallows the reply to the next script call and drops the
 * client's connection (the script has run on the server), as a network failure would.
 */
async function replyDroppingProxy(target: URL) {
  let armed = false;
  let dropped = false;
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    let scriptSent = false;
    client.on('data', (data) => {
      if (armed && !dropped && /evalsha|eval/i.test(data.toString())) scriptSent = true;
      upstream.write(data);
    });
    upstream.on('data', (data) => {
      if (scriptSent && !dropped) {
        dropped = true;
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(data);
    });
    client.on('error', () => {});
    upstream.on('error', () => {});
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    dropNextScriptReply: () => {
      armed = true;
    },
    dropped: () => dropped,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/**
 * A TCP proxy to Redis counting round trips: bursts of the client's bytes, each ending when Redis
 * answers on that connection (commands written together count once).
 */
async function roundTripCountingProxy(target: URL) {
  let bursts = 0;
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    let answered = true;
    client.on('data', (data) => {
      if (answered) bursts++;
      answered = false;
      upstream.write(data);
    });
    upstream.on('data', (data) => {
      answered = true;
      client.write(data);
    });
    client.on('error', () => {});
    upstream.on('error', () => {});
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    /** The round trips counted since the last call. */
    take() {
      const counted = bursts;
      bursts = 0;
      return counted;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** A loopback port nobody listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
