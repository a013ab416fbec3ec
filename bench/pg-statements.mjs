/**
 * PostgreSQL's own CPU per grant-store call, in process and through the public API: a
 * `postgresEngine` on a pool of ONE connection (so one backend does all the work), and for each
 * step the CPU time (user + system, /proc) of that backend over `n` calls, divided by `n`:
 *   - `SELECT 1` (a round trip that does nothing: the floor of any statement),
 *   - `findRefreshToken`, `rotateRefreshToken` (with a successor), `findCode`, `redeemCode`,
 *   - `isRevoked` (the bearer check when pushed revocations are off).
 * Also prints the commits (`pg_stat_database.xact_commit`) per call. Counts, not wall time.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/<own db> node bench/pg-statements.mjs [n] [schema]
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

// PG_TREE=<checkout>: measure that checkout's built engine (e.g. the main branch, for a before/after).
const root = process.env.PG_TREE
  ? new URL(`file://${process.env.PG_TREE.replace(/\/?$/, '/')}`)
  : new URL('../', import.meta.url);
const pg = createRequire(new URL('packages/postgres/package.json', root))('pg');
const postgres = await import(new URL('packages/postgres/dist/index.js', root).href);
const engine = await import(new URL('packages/core/dist/engine.js', root).href);

const N = Number(process.argv[2] ?? 2000);
const schema = process.argv[3] ?? `gatehouse_stmt_${process.pid}`;
const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const pool = new pg.Pool({ connectionString: url, max: 1 });
await postgres.migrate(pool, { schema });
const storage = postgres.postgresEngine({ pool, schema, sweepIntervalMs: 0 }).instance('default');
const grants = storage.grants;
const admin = new pg.Client({ connectionString: url });
await admin.connect();
const pid = (await pool.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
const cpu = () => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
};
const commits = async () => {
  await admin.query('SELECT pg_stat_clear_snapshot()');
  return Number(
    (await admin.query('SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()')).rows[0]
      .xact_commit,
  );
};

const now = Date.now();
const tokens = [];
const codes = [];
/** A user's refresh token record of the runs below. */
const refreshRecord = (tokenHash, grantId) => ({
  tokenHash,
  grantId,
  clientId: 'client',
  subject: { kind: 'user', userId: 'user-1' },
  scope: 'tickets:read offline_access',
  authTime: now,
  issuedAt: now,
  expiresAt: now + 3_600_000,
});
for (let i = 0; i < 2 * N; i++) {
  const hash = await engine.hashSecret(`token-${process.pid}-${i}`);
  tokens.push(hash);
  await grants.saveRefreshToken(refreshRecord(hash, crypto.randomUUID()));
  const code = await engine.hashSecret(`code-${process.pid}-${i}`);
  codes.push(code);
  await grants.saveCode({
    codeHash: code,
    clientId: 'client',
    userId: 'user-1',
    grantId: crypto.randomUUID(),
    redirectUri: 'https://app.example/cb',
    scope: 'openid tickets:read',
    codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    authTime: now,
    expiresAt: now + 600_000,
  });
}
const successor = (i) => refreshRecord(`next-${process.pid}-${i}`, 'g');

async function step(name, call) {
  // Warm: the statement is prepared on the connection (and planned) before counting.
  for (let i = 0; i < 20; i++) await call(N + i);
  await new Promise((resolve) => setTimeout(resolve, 700));
  const c0 = await commits();
  // PERF=<step name>: samples that step's backend with `perf record` (cpu-clock, call graphs).
  const perf =
    process.env.PERF === name
      ? spawn(
          'perf',
          [
            'record',
            '-e',
            'cpu-clock',
            '-F',
            '5000',
            '-g',
            '-p',
            String(pid),
            '-o',
            `/tmp/pg-perf-${process.pid}.data`,
          ],
          { stdio: 'inherit' },
        )
      : undefined;
  if (perf) await new Promise((resolve) => setTimeout(resolve, 500));
  const t0 = cpu();
  for (let i = 0; i < N; i++) await call(i);
  const t1 = cpu();
  if (perf) {
    perf.kill('SIGINT');
    await new Promise((resolve) => perf.once('exit', resolve));
    console.log(`perf data: /tmp/pg-perf-${process.pid}.data`);
  }
  await new Promise((resolve) => setTimeout(resolve, 700));
  const c1 = await commits();
  const us = (x) => ((1e6 * x) / N).toFixed(1);
  console.log(
    `${name.padEnd(22)} backend CPU ${us(t1.user - t0.user + t1.system - t0.system).padStart(6)} µs/call ` +
      `(user ${us(t1.user - t0.user)}, system ${us(t1.system - t0.system)}), commits/call ${((c1 - c0 - 1) / N).toFixed(2)}`,
  );
}

try {
  await step('SELECT 1', () => pool.query('SELECT 1'));
  // The floor of any write: one row into a table without an index, committed (one WAL flush).
  await pool.query(`CREATE TABLE "${schema}".floor (n int)`);
  await step('INSERT, no index', (i) => pool.query(`INSERT INTO "${schema}".floor VALUES ($1)`, [i]));
  await step('findRefreshToken', (i) => grants.findRefreshToken(tokens[i], Date.now()));
  await step('rotateRefreshToken', (i) => grants.rotateRefreshToken(tokens[i], successor(i), Date.now()));
  await step('findCode', (i) => grants.findCode(codes[i], Date.now()));
  await step('redeemCode (no token)', (i) => grants.redeemCode(codes[i], null, Date.now(), now + 600_000));
  await step('isRevoked', (i) => grants.isRevoked(`jti-${i}`, `g-${i}`, Date.now(), 'user-1', now));
} finally {
  if (!process.argv[3]) await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
  await admin.end();
  await pool.end();
}
