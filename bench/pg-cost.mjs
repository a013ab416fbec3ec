/**
 * What PostgreSQL does per request of a workload, counted, not timed: the bench server (Express,
 * `--engine postgres`) talks to PostgreSQL through a proxy that decodes the frontend protocol, and
 * the script reports per request
 *   - the statements the server sent (simple `Query`, or extended `Parse`/`Bind`/`Execute`), by text,
 *     and how many were parsed again (a named statement is parsed once per connection);
 *   - round trips (`Sync` or `Query` messages);
 *   - commits (`pg_stat_database.xact_commit` of the database) and the tables' row counters
 *     (`pg_stat_user_tables`: inserts, updates, HOT updates, deletes) and buffer accesses
 *     (`pg_statio_user_tables`: heap and index blocks hit or read, the bench schema's tables only,
 *     so other clients of the server do not count: a count of work, not a time);
 *   - the CPU time of the database's backends (/proc, user + system), and of the server process.
 * Requests are sent `concurrency` at a time after `warm` warm-up requests.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/<own db> node bench/pg-cost.mjs [W2,W3] [requests] [concurrency] [warm]
 *
 * Use a database of your own: the CPU and commit counters are the whole database's.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createConnection, createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

// pg from the postgres package (the root has no dependency on it).
const pg = createRequire(new URL('../packages/postgres/package.json', import.meta.url))('pg');

const [list = 'W2,W3', count = '2000', conc = '8', warm = '300'] = process.argv.slice(2);
const REQUESTS = Number(count);
const CONCURRENCY = Number(conc);
const WARM = Number(warm);
const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const database = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));

/** Decodes the frontend messages of every connection through it (no TLS: the bench's local server). */
async function decodingProxy(target) {
  const stats = { roundTrips: 0, parses: 0, executes: 0, simple: 0, byText: new Map() };
  const count = (text, field) => {
    const key = text.replace(/\s+/g, ' ').trim().slice(0, 160);
    const entry = stats.byText.get(key) ?? { executes: 0, parses: 0 };
    entry[field]++;
    stats.byText.set(key, entry);
  };
  const proxy = createServer((client) => {
    const upstream = createConnection(target);
    let buffer = Buffer.alloc(0);
    let started = false;
    const named = new Map(); // statement name → text, per connection
    let unnamed = '';
    let bound = '';
    client.on('data', (chunk) => {
      upstream.write(chunk);
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        if (!started) {
          if (buffer.length < 4) return;
          const length = buffer.readInt32BE(0);
          if (buffer.length < length) return;
          buffer = buffer.subarray(length);
          started = true;
          continue;
        }
        if (buffer.length < 5) return;
        const type = String.fromCharCode(buffer[0]);
        const length = buffer.readInt32BE(1);
        if (buffer.length < 1 + length) return;
        const body = buffer.subarray(5, 1 + length);
        buffer = buffer.subarray(1 + length);
        if (type === 'Q') {
          stats.roundTrips++;
          stats.simple++;
          count(`[simple] ${body.toString('utf8', 0, body.length - 1)}`, 'executes');
        } else if (type === 'P') {
          const end = body.indexOf(0);
          const name = body.toString('utf8', 0, end);
          const text = body.toString('utf8', end + 1, body.indexOf(0, end + 1));
          if (name) named.set(name, text);
          else unnamed = text;
          stats.parses++;
          count(text, 'parses');
        } else if (type === 'B') {
          const portalEnd = body.indexOf(0);
          const name = body.toString('utf8', portalEnd + 1, body.indexOf(0, portalEnd + 1));
          bound = name ? (named.get(name) ?? `?${name}`) : unnamed;
        } else if (type === 'E') {
          stats.executes++;
          count(bound, 'executes');
        } else if (type === 'S') {
          stats.roundTrips++;
        }
      }
    });
    upstream.on('data', (chunk) => client.write(chunk));
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close);
    upstream.on('error', close);
    client.on('close', close);
    upstream.on('close', close);
  });
  await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    port: proxy.address().port,
    take() {
      const copy = { ...stats, byText: new Map(stats.byText) };
      stats.roundTrips = stats.parses = stats.executes = stats.simple = 0;
      stats.byText.clear();
      return copy;
    },
    close: () => new Promise((resolve) => proxy.close(resolve)),
  };
}

/** CPU seconds (user + system) of the backends of `database`, and of process `pid`. */
function cpu(pid) {
  let backends = 0;
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const title = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (/^postgres: (?:[^:\s]+: )?\S+ (\S+) /.exec(title)?.[1] !== database) continue;
      backends += ticks(readFileSync(`/proc/${entry}/stat`, 'utf8'));
    } catch {}
  }
  return { backends, server: ticks(readFileSync(`/proc/${pid}/stat`, 'utf8')) };
}
function ticks(stat) {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const admin = new pg.Client({ connectionString: databaseUrl });
await admin.connect();
async function counters() {
  const [db] = (
    await admin.query(
      'SELECT xact_commit::bigint AS c, xact_rollback::bigint AS r FROM pg_stat_database WHERE datname = $1',
      [database],
    )
  ).rows;
  const tables = (
    await admin.query(
      `SELECT t.relname, n_tup_ins::bigint AS ins, n_tup_upd::bigint AS upd, n_tup_hot_upd::bigint AS hot,
              n_tup_del::bigint AS del, coalesce(idx_scan, 0)::bigint AS idx, seq_scan::bigint AS seq,
              (coalesce(heap_blks_hit, 0) + coalesce(heap_blks_read, 0))::bigint AS heapblks,
              (coalesce(idx_blks_hit, 0) + coalesce(idx_blks_read, 0))::bigint AS idxblks
       FROM pg_stat_user_tables t JOIN pg_statio_user_tables s USING (relid)
       WHERE t.schemaname LIKE 'gatehouse_bench_%'`,
    )
  ).rows;
  // The whole cluster's WAL (other databases' writes count too: use a quiet server).
  const [wal] = (
    await admin.query(
      'SELECT wal_records, wal_fpi, wal_bytes::bigint AS bytes, wal_write, wal_sync FROM pg_stat_wal',
    )
  ).rows;
  return { commits: Number(db.c), rollbacks: Number(db.r), tables, wal };
}

const url = new URL(databaseUrl);
const proxy = await decodingProxy({ host: url.hostname, port: Number(url.port || 5432) });
process.env.DATABASE_URL = Object.assign(new URL(url), { hostname: '127.0.0.1', port: proxy.port }).href;
const { sendPrepared, startServer, WORKLOADS } = await import('./harness.mjs');
const server = await startServer('express', [], 'postgres');

async function send(prepared, n) {
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      await sendPrepared(server, prepared);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

try {
  for (const id of list.split(',')) {
    const workload = WORKLOADS.find((candidate) => candidate.id === id);
    const [prepared] = await workload.prepare(server, REQUESTS + WARM, 1800);
    await send(prepared, WARM);
    await sleep(500);
    // pg_stat counters reach the view when a backend goes idle (and at most every 500 ms or so).
    await admin.query('SELECT pg_stat_clear_snapshot()');
    proxy.take();
    const before = await counters();
    const cpuBefore = cpu(server.child.pid);
    await send(prepared, REQUESTS);
    const cpuAfter = cpu(server.child.pid);
    const traffic = proxy.take();
    await sleep(1500);
    await admin.query('SELECT pg_stat_clear_snapshot()');
    const after = await counters();
    const per = (x) => (x / REQUESTS).toFixed(2);
    console.log(`\n## ${id} ${workload.name}: ${REQUESTS} requests, ${CONCURRENCY} at a time`);
    console.log(
      `PostgreSQL backends CPU ${((1e6 * (cpuAfter.backends - cpuBefore.backends)) / REQUESTS).toFixed(0)} µs/request; ` +
        `server ${((1e6 * (cpuAfter.server - cpuBefore.server)) / REQUESTS).toFixed(0)} µs/request`,
    );
    console.log(
      `round trips ${per(traffic.roundTrips)}, executes ${per(traffic.executes)}, simple queries ${per(traffic.simple)}, parses ${per(traffic.parses)}, ` +
        `commits ${per(after.commits - before.commits)} (admin's own counter queries included: ~2), rollbacks ${per(after.rollbacks - before.rollbacks)}`,
    );
    const w = (k) => per(Number(after.wal[k]) - Number(before.wal[k]));
    console.log(
      `WAL (cluster-wide) per request: records ${w('wal_records')}, full-page images ${w('wal_fpi')}, bytes ${w('bytes')}, writes ${w('wal_write')}, syncs ${w('wal_sync')}`,
    );
    for (const [text, entry] of [...traffic.byText].sort((a, b) => b[1].executes - a[1].executes))
      console.log(`  ${per(entry.executes)} exec ${per(entry.parses)} parse  ${text}`);
    for (const table of after.tables) {
      const old = before.tables.find((t) => t.relname === table.relname) ?? {};
      const d = (k) => Number(table[k]) - Number(old[k] ?? 0);
      if (d('ins') || d('upd') || d('del') || d('idx') || d('seq'))
        console.log(
          `  ${table.relname}: ins ${per(d('ins'))} upd ${per(d('upd'))} hot ${per(d('hot'))} del ${per(d('del'))} idx scans ${per(d('idx'))} seq scans ${per(d('seq'))}` +
            ` | buffer accesses: heap ${per(d('heapblks'))} index ${per(d('idxblks'))}`,
        );
    }
  }
} finally {
  server.child.kill('SIGTERM');
  await new Promise((resolve) => server.child.once('exit', resolve));
  await proxy.close();
  await admin.end();
}
