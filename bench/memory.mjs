/**
 * Bytes per stored record, by kind (refresh token, authorization code, session), on each engine:
 *   - memory: the V8 heap a record adds (heap used after a full collection, before and after
 *     `count` records of one kind, each in a store of its own), and what the process's RSS grew by
 *     meanwhile (heap slack and fragmentation included: the figure of run R's line), through the
 *     public API of the built package;
 *   - redis (REDIS_URL): `INFO memory` `used_memory` before and after (the keys, their values, the
 *     expiry and index entries: everything the records cost the server), and `MEMORY USAGE` of one
 *     record's keys. Give it a server of its own: `used_memory` is the whole server's;
 *   - postgres (DATABASE_URL): `pg_total_relation_size` (table, TOAST and every index) of the
 *     record's table after `count` rows, per row, in a schema of its own.
 * Records are what Gatehouse stores for a browser sign-in: a refresh token of a grant (its code's
 * grant, user, scope and authentication), the consumed code's predecessor as it waits to be
 * redeemed, a session with its public id. Each record's strings are its own (parsed from JSON, as
 * a request or an engine hands them over), so sharing between records is the engine's doing.
 *
 *   node --expose-gc bench/memory.mjs [count] [memory,redis,postgres]
 *
 * Prints bytes per record and MB per million records. `pnpm bench` runs it on memory.
 */
import { createRequire } from 'node:module';

const [countArg = '200000', enginesArg = 'memory'] = process.argv.slice(2);
const COUNT = Number(countArg);
const ENGINES = enginesArg.split(',');
const root = new URL('../', import.meta.url);
const engine = await import(new URL('packages/core/dist/engine.js', root).href);
const { hashSecret, kvSessionStore, memoryGrantStore, memoryKeyValueStore } = engine;

const random = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
const id = (bytes) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString('base64url');
const USERS = 5000;

/** Fresh strings, as a parsed request or an engine's reply gives them. */
const fresh = (value) => JSON.parse(JSON.stringify(value));

/** The records of the `i`th grant, as Gatehouse writes them. */
async function records(i) {
  const now = Date.now();
  const userId = `user-${i % USERS}`;
  const grantId = id(16);
  const sessionId = id(16);
  const scope = 'openid profile tickets:read offline_access';
  return {
    refreshToken: fresh({
      tokenHash: await hashSecret(random()),
      issuedAt: now,
      expiresAt: now + 30 * 86_400_000,
      grantId,
      clientId: 'demo-client',
      subject: { kind: 'user', userId },
      scope,
      authTime: now - 5000,
      sessionId,
      grantedAt: now,
    }),
    code: fresh({
      codeHash: await hashSecret(random()),
      clientId: 'demo-client',
      userId,
      grantId,
      redirectUri: 'http://localhost:3000/callback',
      scope,
      codeChallenge: await hashSecret(random()),
      authTime: now - 5000,
      // A code lives 60 s, a consumed one as long as its grant: long enough here not to expire
      // while a million are written.
      expiresAt: now + 3_600_000,
      nonce: id(12),
      sessionId,
    }),
    session: fresh({
      idHash: await hashSecret(random()),
      sid: sessionId,
      userId,
      createdAt: now - 5000,
      lastSeenAt: now,
      expiresAt: now + 43_200_000,
    }),
  };
}

const KINDS = ['refreshToken', 'code', 'session'];
const LABEL = { refreshToken: 'refresh token', code: 'authorization code', session: 'session' };
const perMillion = (bytes) => `${((bytes * 1e6) / 2 ** 20).toFixed(0)} MB`;
const results = [];

/** Writes `count` records of `kind` with `save`, between `measure()` readings: bytes per record. */
async function fill(kind, count, save, measure) {
  const before = await measure();
  for (let i = 0; i < count; i++) await save((await records(i))[kind]);
  return ((await measure()) - before) / count;
}

if (ENGINES.includes('memory')) {
  const heap = async () => {
    globalThis.gc?.();
    globalThis.gc?.();
    return process.memoryUsage().heapUsed;
  };
  const rss = () => process.memoryUsage().rss;
  const keep = [];
  for (const kind of KINDS) {
    const grants = memoryGrantStore();
    const sessions = kvSessionStore(memoryKeyValueStore({ maxEntries: 10_000_000 }));
    keep.push(grants, sessions);
    const save = {
      refreshToken: (record) => grants.saveRefreshToken(record),
      code: (record) => grants.saveCode(record),
      session: (record) => sessions.createSession(record),
    }[kind];
    const rssBefore = rss();
    const bytes = await fill(kind, COUNT, save, heap);
    const rssPerRecord = (rss() - rssBefore) / COUNT;
    results.push({ engine: 'memory', kind, bytes, note: `RSS grew ${rssPerRecord.toFixed(0)} B per record` });
  }
  if (!globalThis.gc) console.warn('run with --expose-gc for settled heap figures');
  console.log(
    `memory: RSS at the end ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB (${keep.length} stores)`,
  );
}

if (ENGINES.includes('redis')) {
  const redis = await import(new URL('packages/redis/dist/index.js', root).href);
  const prefix = `gatehouse_memory_${process.pid}`;
  const storage = redis.redisStorage({ url: process.env.REDIS_URL, prefix });
  await storage.ready();
  const used = async () => Number(/used_memory:(\d+)/.exec(await storage.client.info('memory'))[1]);
  const sessions = kvSessionStore(storage.kv);
  const count = Math.min(COUNT, 50_000);
  try {
    for (const kind of KINDS) {
      const save = {
        refreshToken: (record) => storage.grants.saveRefreshToken(record),
        code: (record) => storage.grants.saveCode(record),
        session: (record) => sessions.createSession(record),
      }[kind];
      const bytes = await fill(kind, count, save, used);
      // One record's keys, by MEMORY USAGE (the record itself, without the server's dictionaries).
      const sample = (await records(count + 1))[kind];
      await save(sample);
      const keys = [];
      for (const pattern of [`${prefix}:*${sample.tokenHash ?? sample.codeHash ?? sample.idHash}*`]) {
        let cursor = '0';
        do {
          const [next, found] = await storage.client.scan(cursor, 'MATCH', pattern, 'COUNT', 10_000);
          cursor = next;
          keys.push(...found);
        } while (cursor !== '0');
      }
      let usage = 0;
      for (const key of keys) usage += Number(await storage.client.memory('USAGE', key, 'SAMPLES', 0));
      results.push({
        engine: 'redis',
        kind,
        bytes,
        note: `MEMORY USAGE of its ${keys.length} keys: ${usage} B`,
      });
      await storage.clear();
    }
  } finally {
    await storage.clear();
    await storage.close();
  }
}

if (ENGINES.includes('postgres')) {
  const postgres = await import(new URL('packages/postgres/dist/index.js', root).href);
  const pg = createRequire(new URL('packages/postgres/package.json', root))('pg');
  const schema = `gatehouse_memory_${process.pid}`;
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
  const count = Math.min(COUNT, 20_000);
  try {
    await postgres.migrate(pool, { schema });
    const storage = postgres.postgresEngine({ pool, schema, sweepIntervalMs: 0 }).instance('default');
    const sessions = kvSessionStore(storage.kv);
    const table = { refreshToken: 'refresh_tokens', code: 'authorization_codes', session: 'key_values' };
    for (const kind of KINDS) {
      const save = {
        refreshToken: (record) => storage.grants.saveRefreshToken(record),
        code: (record) => storage.grants.saveCode(record),
        session: (record) => sessions.createSession(record),
      }[kind];
      const size = async () => {
        await pool.query(`VACUUM ANALYZE "${schema}"."${table[kind]}"`);
        const { rows } = await pool.query('SELECT pg_total_relation_size($1)::bigint AS size', [
          `"${schema}"."${table[kind]}"`,
        ]);
        return Number(rows[0].size);
      };
      results.push({ engine: 'postgres', kind, bytes: await fill(kind, count, save, size) });
    }
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  }
}

console.log(
  `\n### Bytes per record (Node ${process.version}, ${COUNT.toLocaleString('en')} records of each kind)\n`,
);
console.log('| engine | record | bytes per record | per million | |');
console.log('|---|---|---:|---:|---|');
for (const { engine: name, kind, bytes, note } of results)
  console.log(`| ${name} | ${LABEL[kind]} | ${bytes.toFixed(0)} | ${perMillion(bytes)} | ${note ?? ''} |`);
