import {
  ConfigurationError,
  createGatehouse,
  type Gatehouse,
  type GatehouseEvent,
  type GatehouseOptions,
  type GatehouseStorage,
  generateKeys,
  hashClientSecret,
  type KeySigner,
  memoryClientStore,
  memoryStorage,
  memoryUserStore,
} from '@gatehousejs/core';
import type { KeyValueStore } from '@gatehousejs/core/engine';
import { createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { basic, ISSUER, post, testClients, testClock, testHasher } from '../../../test/fixtures';
import { rotateUnderLoad } from '../../../test/key-rotation-under-load';

const KEK = 'q83vEjRWeJC6_u7_ABEiMw'; // 16 bytes, base64url
const DAY = 86_400;

/** A key-value store that counts reads, over `inner`. */
function countingKv(inner: KeyValueStore) {
  const counts = { get: 0, lostSwaps: 0 };
  const kv: KeyValueStore = {
    get: (key, now) => {
      counts.get++;
      return inner.get(key, now);
    },
    set: (...args) => inner.set(...args),
    add: (...args) => inner.add(...args),
    take: (...args) => inner.take(...args),
    swap: async (...args) => {
      const swapped = await inner.swap(...args);
      if (!swapped) counts.lostSwaps++;
      return swapped;
    },
    delete: (key) => inner.delete(key),
    increment: (...args) => inner.increment(...args),
  };
  return { kv, counts };
}

/** Processes of one issuer on one memory engine, with a shared injected clock. */
async function deployment(overrides: Partial<GatehouseOptions> = {}) {
  const clock = testClock();
  const shared = memoryStorage();
  const { kv, counts } = countingKv(shared.kv);
  const storage: GatehouseStorage = { ...shared, kv };
  const events: GatehouseEvent[] = [];
  const errors: unknown[][] = [];
  const clients = [
    ...(await testClients()),
    {
      id: 'service',
      type: 'confidential' as const,
      secretHash: await hashClientSecret('service-secret'),
      redirectUris: [],
      grantTypes: ['client_credentials'],
    },
  ];
  const users = memoryUserStore([], { hasher: testHasher });
  const start = (more: Partial<GatehouseOptions> = {}) =>
    createGatehouse({
      issuer: ISSUER,
      keys: [],
      keyRotation: { keyEncryptionKey: KEK, rotateEvery: 10 * DAY, leadTime: DAY, refreshInterval: 30 },
      clients: memoryClientStore(clients),
      users,
      now: clock.now,
      storage,
      onEvent: (event) => events.push(event),
      logger: { warn() {}, error: (...args: unknown[]) => errors.push(args) },
      ...overrides,
      ...more,
    });
  return { clock, storage, shared, counts, events, errors, start };
}

async function accessToken(gatehouse: Gatehouse): Promise<string> {
  const response = await gatehouse.fetch(
    post(
      '/oauth2/v1/token',
      { grant_type: 'client_credentials' },
      { Authorization: basic('service', 'service-secret') },
    ),
  );
  const body = (await response.json()) as { access_token: string };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body.access_token;
}

async function bearerCheck(gatehouse: Gatehouse, token: string): Promise<number> {
  const result = await gatehouse.authenticate(
    new Request(`${ISSUER}/api/v1/x`, { headers: { Authorization: `Bearer ${token}` } }),
    { schemes: ['bearer'], subjects: ['client'] },
  );
  return result.ok ? 200 : result.response.status;
}

async function jwks(gatehouse: Gatehouse): Promise<{ body: JSONWebKeySet; maxAge: string | null }> {
  const response = await gatehouse.fetch(new Request(`${ISSUER}/oauth2/v1/keys`));
  return { body: (await response.json()) as JSONWebKeySet, maxAge: response.headers.get('cache-control') };
}

const kidOf = (token: string) => decodeProtectedHeader(token).kid!;

/** The stored key record, as the storage holds it. */
interface RecordAsStored {
  v: 1;
  generation?: number;
  mac?: string;
  keys: { kid: string; signsFrom: number; sealed: string }[];
}

async function storedRecord(d: {
  shared: GatehouseStorage;
  clock: { now(): number };
}): Promise<RecordAsStored> {
  return JSON.parse((await d.shared.kv.get('signing-keys', d.clock.now()))!) as RecordAsStored;
}

/** Writes the record directly, as whoever can write the database can. */
async function storeRecord(d: { shared: GatehouseStorage; clock: { now(): number } }, record: object) {
  await d.shared.kv.set('signing-keys', JSON.stringify(record), d.clock.now() + 365 * DAY * 1000);
}

describe('stored key rotation (keyRotation)', () => {
  it('stores a signing key and a next key per algorithm, private halves encrypted, and publishes both', async () => {
    const d = await deployment();
    const a = d.start();
    await a.ready();
    const listed = await a.keys.list();
    expect(listed.map((k) => [k.algorithm, k.state])).toEqual([
      ['ES256', 'signing'],
      ['ES256', 'next'],
      ['RS256', 'signing'],
      ['RS256', 'next'],
    ]);
    const raw = (await d.shared.kv.get('signing-keys', d.clock.now()))!;
    const record = JSON.parse(raw) as { keys: { jwk: Record<string, unknown>; sealed: string }[] };
    expect(record.keys).toHaveLength(4);
    for (const key of record.keys) {
      expect(key.jwk.d).toBeUndefined();
      expect(key.sealed.split('.')).toHaveLength(3);
    }
    expect(raw).not.toMatch(/"d":/);
    const { body, maxAge } = await jwks(a);
    expect(body.keys.map((k) => k.kid).sort()).toEqual(listed.map((k) => k.kid).sort());
    expect(body.keys.every((k) => k.d === undefined)).toBe(true);
    expect(maxAge).toBe('public, max-age=300');
    const token = await accessToken(a);
    expect(kidOf(token)).toBe(listed[0]!.kid);
    expect(d.events.filter((e) => e.type === 'signing_key.published')).toHaveLength(4);
  });

  it('makes every process of the issuer sign with the same key and verify the other’s tokens', async () => {
    const d = await deployment();
    const [a, b] = [d.start(), d.start()];
    await Promise.all([a.ready(), b.ready()]);
    const [fromA, fromB] = [await accessToken(a), await accessToken(b)];
    expect(kidOf(fromA)).toBe(kidOf(fromB));
    expect(await bearerCheck(b, fromA)).toBe(200);
    expect(await bearerCheck(a, fromB)).toBe(200);
    // Two processes starting at once: one record (one winner), two keys per algorithm.
    expect(await a.keys.list()).toEqual(await b.keys.list());
  });

  it('switches to the next key at its scheduled time, keeps the retired key until its tokens expired, then drops it', async () => {
    const d = await deployment({ accessTokenTtl: 3600, authApi: { enabled: false } });
    const a = d.start();
    await a.ready();
    const [current, next] = await a.keys.list();
    d.clock.advance((next!.signsFrom - d.clock.now()) / 1000 - 60);
    const old = await accessToken(a);
    expect(kidOf(old)).toBe(current!.kid);
    d.clock.advance(60);
    const fresh = await accessToken(a);
    expect(kidOf(fresh)).toBe(next!.kid);
    expect(await bearerCheck(a, old)).toBe(200);
    const listed = await a.keys.list();
    expect(listed.find((k) => k.kid === current!.kid)).toMatchObject({ state: 'retired' });
    // A new next key was published to follow the one now signing.
    expect(listed.filter((k) => k.algorithm === 'ES256' && k.state === 'next')).toHaveLength(1);
    expect((await jwks(a)).body.keys.map((k) => k.kid)).toContain(current!.kid);
    // Retained for retainFor (the access token lifetime here) plus the refresh interval.
    d.clock.advance(3600 + 30);
    await a.keys.list();
    expect((await jwks(a)).body.keys.map((k) => k.kid)).not.toContain(current!.kid);
    expect(d.events).toContainEqual({ type: 'signing_key.dropped', kid: current!.kid, algorithm: 'ES256' });
  });

  it('answers the bearer check from memory: no storage read per verification', async () => {
    const d = await deployment();
    const a = d.start();
    await a.ready();
    const token = await accessToken(a);
    const reads = d.counts.get;
    for (let i = 0; i < 50; i++) expect(await bearerCheck(a, token)).toBe(200);
    expect(d.counts.get).toBe(reads);
  });

  it('re-reads the key set for a token of an unknown kid at most once a second', async () => {
    const d = await deployment();
    const a = d.start();
    await a.ready();
    const stranger = await generateKeys('ES256');
    const { SignJWT, importJWK } = await import('jose');
    const forged = await new SignJWT({ scope: '' })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: stranger.kid })
      .sign(await importJWK(stranger, 'ES256'));
    const reads = d.counts.get;
    for (let i = 0; i < 20; i++) expect(await bearerCheck(a, forged)).toBe(401);
    expect(d.counts.get - reads).toBe(1);
    d.clock.advance(1);
    expect(await bearerCheck(a, forged)).toBe(401);
    expect(d.counts.get - reads).toBe(2);
  });

  it('rotate(): the published next key signs now, a new next key is published, other processes follow within the refresh interval', async () => {
    const d = await deployment();
    const [a, b] = [d.start(), d.start()];
    await Promise.all([a.ready(), b.ready()]);
    const before = await a.keys.list();
    d.clock.advance(DAY + 30); // the next key has been published for the lead time
    const rotated = await a.keys.rotate();
    expect(rotated.map((k) => [k.algorithm, k.state])).toEqual([
      ['ES256', 'signing'],
      ['RS256', 'signing'],
    ]);
    expect(rotated[0]!.kid).toBe(before[1]!.kid);
    const fromA = await accessToken(a);
    expect(kidOf(fromA)).toBe(rotated[0]!.kid);
    // B still signs with the previous key until it re-reads; both keys verify everywhere.
    const fromB = await accessToken(b);
    expect(await bearerCheck(a, fromB)).toBe(200);
    expect(await bearerCheck(b, fromA)).toBe(200);
    d.clock.advance(30);
    await b.keys.list();
    expect(kidOf(await accessToken(b))).toBe(rotated[0]!.kid);
    expect(
      d.events.filter((e) => e.type === 'signing_key.rotated').map((e) => (e as { kid: string }).kid),
    ).toEqual(rotated.map((k) => k.kid));
  });

  it('two processes rotating at once agree on one key set: one write wins, the other reads again', async () => {
    const d = await deployment();
    const [a, b] = [d.start(), d.start()];
    await Promise.all([a.ready(), b.ready()]);
    d.clock.advance(DAY + 30);
    const [fromA, fromB] = await Promise.all([a.keys.rotate(), b.keys.rotate()]);
    expect(d.counts.lostSwaps).toBeGreaterThanOrEqual(1);
    const [listA, listB] = [await a.keys.list(), await b.keys.list()];
    expect(listA).toEqual(listB);
    for (const algorithm of ['ES256', 'RS256']) {
      const states = listA.filter((k) => k.algorithm === algorithm).map((k) => k.state);
      expect(states.filter((state) => state === 'signing')).toHaveLength(1);
      expect(states.filter((state) => state === 'next')).toHaveLength(1);
    }
    // Both calls rotated: the first brought the published next key in, the second scheduled the
    // key the first published (not yet published for the lead time).
    expect(new Set([...fromA, ...fromB].map((k) => k.kid)).size).toBe(4);
    expect(await bearerCheck(b, await accessToken(a))).toBe(200);
  });

  it('a process idle past the refresh interval re-reads before it publishes the JWKS or signs', async () => {
    const d = await deployment();
    const [a, b] = [d.start(), d.start()];
    await Promise.all([a.ready(), b.ready()]);
    d.clock.advance(DAY + 30);
    await b.keys.list(); // B is up to date, then idle
    const [rotated] = await a.keys.rotate();
    d.clock.advance(31);
    // B's first request after idling signs with the key A rotated in, not its old copy's.
    expect(kidOf(await accessToken(b))).toBe(rotated!.kid);
    const next = (await a.keys.list()).find((k) => k.algorithm === 'ES256' && k.state === 'next')!;
    expect(await a.keys.revoke(next.kid)).toBe(true);
    d.clock.advance(31);
    expect((await jwks(b)).body.keys.map((k) => k.kid)).not.toContain(next.kid);
  });

  it('a process that only meets cached tokens still learns of a revocation within the refresh interval', async () => {
    const d = await deployment();
    const [a, b] = [d.start(), d.start()];
    await Promise.all([a.ready(), b.ready()]);
    const token = await accessToken(a);
    expect(await bearerCheck(b, token)).toBe(200); // cached in B from now on
    await a.keys.revoke(kidOf(token));
    d.clock.advance(31);
    const reads = d.counts.get;
    await bearerCheck(b, token); // this check may still use B's old copy…
    expect(d.counts.get).toBe(reads + 1); // …but it started B's re-read
    await b.keys.list();
    expect(await bearerCheck(b, token)).toBe(401);
  });

  it('rotate() never lets a key sign before it was published for the lead time', async () => {
    const d = await deployment();
    const a = d.start();
    await a.ready();
    const [, next] = await a.keys.list();
    const [rotated] = await a.keys.rotate();
    expect(rotated).toMatchObject({
      kid: next!.kid,
      state: 'next',
      signsFrom: next!.publishedAt + (DAY + 30) * 1000,
    });
  });

  it('revoke(kid): out of the JWKS and refused at once here (even a cached token), within the refresh interval elsewhere', async () => {
    const d = await deployment();
    const [a, b] = [d.start(), d.start()];
    await Promise.all([a.ready(), b.ready()]);
    const token = await accessToken(a);
    const kid = kidOf(token);
    expect(await bearerCheck(a, token)).toBe(200);
    expect(await bearerCheck(b, token)).toBe(200); // now in both verified-token caches
    expect(await a.keys.revoke(kid)).toBe(true);
    expect((await jwks(a)).body.keys.map((k) => k.kid)).not.toContain(kid);
    expect(await bearerCheck(a, token)).toBe(401);
    const introspected = await a.fetch(
      post('/oauth2/v1/introspect', { token }, { Authorization: basic('demo-client', 'demo-secret') }),
    );
    expect(await introspected.json()).toEqual({ active: false });
    // The next key signs at once, and a new next key is published.
    const replacement = await accessToken(a);
    expect(kidOf(replacement)).not.toBe(kid);
    expect(await bearerCheck(b, replacement)).toBe(200);
    // B learns of the revocation when it re-reads: within refreshInterval.
    d.clock.advance(30);
    await b.keys.list();
    expect(await bearerCheck(b, token)).toBe(401);
    expect((await jwks(b)).body.keys.map((k) => k.kid)).not.toContain(kid);
    expect(d.events).toContainEqual({ type: 'signing_key.revoked', kid, algorithm: 'ES256' });
    expect(await a.keys.revoke(kid)).toBe(false);
  });

  it('signs ID tokens with the stored RS256 key', async () => {
    const d = await deployment();
    const a = d.start();
    await a.ready();
    const rsa = (await a.keys.list()).find((k) => k.algorithm === 'RS256' && k.state === 'signing')!;
    const discovery = await (
      await a.fetch(new Request(`${ISSUER.replace('/demo', '')}/.well-known/openid-configuration/demo`))
    ).json();
    expect(discovery.id_token_signing_alg_values_supported).toContain('RS256');
    expect((await jwks(a)).body.keys.find((k) => k.kid === rsa.kid)).toMatchObject({
      kty: 'RSA',
      alg: 'RS256',
    });
  });

  it('keeps the keys of `keys` verifying beside the stored ones', async () => {
    const d = await deployment();
    const legacy = await generateKeys('ES256');
    const before = d.start({ keyRotation: undefined, keys: [legacy] });
    const old = await accessToken(before);
    const a = d.start({ keys: [legacy] });
    await a.ready();
    expect(kidOf(await accessToken(a))).not.toBe(legacy.kid);
    expect(await bearerCheck(a, old)).toBe(200);
    expect((await jwks(a)).body.keys.map((k) => k.kid)).toContain(legacy.kid);
  });

  it('keeps the JWKS cache below the lead time', async () => {
    const d = await deployment({
      keyRotation: { keyEncryptionKey: KEK, rotateEvery: 600, leadTime: 120, refreshInterval: 10 },
      accessTokenTtl: 60,
      authApi: { enabled: false },
    });
    const a = d.start();
    expect((await jwks(a)).maxAge).toBe('public, max-age=60');
  });

  it('a relying party caching the JWKS for the lead time never meets an unknown kid', async () => {
    const d = await deployment({
      keyRotation: {
        keyEncryptionKey: KEK,
        rotateEvery: 300,
        leadTime: 300,
        refreshInterval: 10,
        algorithms: ['ES256'],
      },
      accessTokenTtl: 120,
      authApi: { enabled: false },
    });
    const a = d.start();
    await a.ready();
    let cached: { set: ReturnType<typeof createLocalJWKSet>; kids: Set<string>; at: number } | undefined;
    let unknown = 0;
    const kids = new Set<string>();
    // Every 7 s for 12 scheduled rotations: the relying party refetches only once its copy is
    // leadTime old. A key signs once published for leadTime (plus the refresh interval) only.
    for (let step = 0; step < (12 * 300) / 7; step++) {
      if (!cached || d.clock.now() - cached.at >= 300_000) {
        const { body } = await jwks(a);
        cached = {
          set: createLocalJWKSet(body),
          kids: new Set(body.keys.map((k) => k.kid!)),
          at: d.clock.now(),
        };
      }
      const token = await accessToken(a);
      kids.add(kidOf(token));
      if (!cached.kids.has(kidOf(token))) unknown++;
      else await jwtVerify(token, cached.set, { currentDate: new Date(d.clock.now()) });
      if (step % 30 === 29) await a.keys.rotate(); // on-demand rotations too
      d.clock.advance(7);
      // The fake clock runs ahead of the background re-read (key generation takes real time):
      // wait for it, as a busy process re-reads every refreshInterval of real time.
      await a.keys.list();
    }
    expect(kids.size).toBeGreaterThanOrEqual(12);
    expect(unknown).toBe(0);
  });

  it('opens keys sealed under a previous KEK and seals them again under the current one at the next write', async () => {
    const d = await deployment();
    const a = d.start();
    await a.ready();
    const kids = (await a.keys.list()).map((k) => k.kid);
    const newKek = 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8'; // 32 bytes
    const b = d.start({
      keyRotation: {
        keyEncryptionKey: newKek,
        previousKeyEncryptionKeys: [KEK],
        rotateEvery: 10 * DAY,
        leadTime: DAY,
        refreshInterval: 30,
      },
    });
    await b.ready();
    await b.keys.rotate();
    const record = JSON.parse((await d.shared.kv.get('signing-keys', d.clock.now()))!) as {
      keys: { kid: string; sealed: string }[];
    };
    const sealers = new Set(record.keys.map((k) => k.sealed.split('.')[0]));
    expect(sealers.size).toBe(1);
    const c = d.start({
      keyRotation: { keyEncryptionKey: newKek, rotateEvery: 10 * DAY, leadTime: DAY, refreshInterval: 30 },
    });
    await c.ready();
    expect((await c.keys.list()).map((k) => k.kid)).toEqual(expect.arrayContaining(kids));
  });

  it('refuses to start with a KEK that did not seal the stored keys', async () => {
    const d = await deployment();
    await d.start().ready();
    const other = d.start({
      keyRotation: { keyEncryptionKey: 'AAECAwQFBgcICQoLDA0ODw', rotateEvery: 10 * DAY, leadTime: DAY },
    });
    await expect(other.ready()).rejects.toMatchObject({ code: 'ERR_CONFIG_UNREADABLE_STORED_KEY' });
  });

  it('refuses an altered record: a revocation undone, a signsFrom moved (MAC), and starts on none of them', async () => {
    const d = await deployment();
    const a = d.start();
    await a.ready();
    const token = await accessToken(a);
    const kid = kidOf(token);
    const before = await storedRecord(d);
    expect(before).toMatchObject({ generation: expect.any(Number), mac: expect.any(String) });
    expect(await a.keys.revoke(kid)).toBe(true);
    const revoked = await storedRecord(d);
    // The revoked key put back into the current record, its generation and MAC kept.
    const restored = { ...revoked, keys: [...before.keys.filter((key) => key.kid === kid), ...revoked.keys] };
    // The first key's start moved a year later (the signing key changes to another).
    const moved = {
      ...revoked,
      keys: revoked.keys.map((key, index) =>
        index === 0 ? { ...key, signsFrom: key.signsFrom + 365 * DAY * 1000 } : key,
      ),
    };
    for (const altered of [restored, moved]) {
      await storeRecord(d, altered);
      d.clock.advance(31);
      await expect(a.keys.list()).rejects.toMatchObject({ code: 'ERR_CONFIG_UNTRUSTED_KEY_RECORD' });
      // Fail closed: the revoked key stays refused, the keys known so far sign and verify.
      expect(await bearerCheck(a, token)).toBe(401);
      expect((await jwks(a)).body.keys.map((k) => k.kid)).not.toContain(kid);
      expect(await bearerCheck(a, await accessToken(a))).toBe(200);
      // A process starting on it does not start.
      await expect(d.start().ready()).rejects.toMatchObject({ code: 'ERR_CONFIG_UNTRUSTED_KEY_RECORD' });
    }
    expect(d.events.filter((event) => event.type === 'signing_keys.refused')).toContainEqual({
      type: 'signing_keys.refused',
      reason: 'tampered',
      generation: String(revoked.generation),
    });
    expect(d.errors.some(([message]) => String(message).includes('MAC does not verify'))).toBe(true);
  });

  it('refuses a record older than one it has seen (rollback), with or without its MAC', async () => {
    const d = await deployment();
    const a = d.start();
    await a.ready();
    const token = await accessToken(a);
    const kid = kidOf(token);
    const before = await storedRecord(d);
    expect(await a.keys.revoke(kid)).toBe(true);
    const { mac: _mac, generation: _generation, ...stripped } = before;
    for (const older of [before, stripped]) {
      await storeRecord(d, older);
      d.clock.advance(31);
      await expect(a.keys.list()).rejects.toMatchObject({ code: 'ERR_CONFIG_UNTRUSTED_KEY_RECORD' });
      expect(await bearerCheck(a, token)).toBe(401);
    }
    expect(d.events).toContainEqual({
      type: 'signing_keys.refused',
      reason: 'rolled_back',
      generation: String(before.generation),
    });
    expect(d.events).toContainEqual({ type: 'signing_keys.refused', reason: 'rolled_back' });
  });

  it('loads a record of an earlier version (no MAC) and authenticates it at once, generation counting up', async () => {
    const d = await deployment();
    await d.start().ready();
    const { mac: _mac, generation: _generation, ...legacy } = await storedRecord(d);
    await storeRecord(d, legacy);
    const b = d.start();
    await b.ready();
    const migrated = await storedRecord(d);
    expect(migrated).toMatchObject({ generation: 1, mac: expect.any(String) });
    expect(migrated.keys).toEqual(expect.arrayContaining(legacy.keys));
    await b.keys.rotate();
    expect((await storedRecord(d)).generation).toBe(2);
  });

  it('refuses a KEK under 128 bits, a retention shorter than the token lifetime, and a signer of a rotated algorithm', async () => {
    const d = await deployment();
    const refused = (options: Partial<GatehouseOptions>) => {
      try {
        d.start(options);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigurationError);
        return { code: (error as ConfigurationError).code, option: (error as ConfigurationError).option };
      }
      throw new Error('accepted');
    };
    expect(refused({ keyRotation: { keyEncryptionKey: new Uint8Array(8) } })).toEqual({
      code: 'ERR_CONFIG_WEAK_KEY_ENCRYPTION_KEY',
      option: 'keyRotation.keyEncryptionKey',
    });
    expect(refused({ keyRotation: { keyEncryptionKey: KEK, retainFor: 60 } })).toEqual({
      code: 'ERR_CONFIG_CONFLICTING_OPTIONS',
      option: 'keyRotation.retainFor',
    });
    const rsa = await generateKeys('RS256');
    const signer: KeySigner = {
      publicJwk: { kty: rsa.kty!, n: rsa.n!, e: rsa.e!, kid: rsa.kid },
      sign: async () => new Uint8Array(256),
    };
    expect(refused({ signers: [signer] })).toEqual({
      code: 'ERR_CONFIG_CONFLICTING_OPTIONS',
      option: 'signers[0]',
    });
    // Without keyRotation, gatehouse.keys says which option it needs.
    const plain = d.start({ keyRotation: undefined, keys: [await generateKeys('ES256')] });
    await expect(plain.keys.rotate()).rejects.toMatchObject({
      code: 'ERR_CONFIG_MISSING_OPTION',
      option: 'keyRotation',
    });
  });

  it('rotates under load on two processes with zero verification failures (memory engine)', async () => {
    const shared = memoryStorage();
    const run = await rotateUnderLoad([shared, shared], 3);
    expect(run.failures).toEqual([]);
    expect(run.signingKids.length).toBeGreaterThanOrEqual(4);
    expect(run.verified).toBeGreaterThan(run.issued);
  }, 60_000);
});
