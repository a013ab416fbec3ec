/**
 * The refresh grant's and the code exchange's storage steps alone, in process, without HTTP or
 * signing: what the grant store costs the Node process (CPU per step, `process.cpuUsage`) and
 * Redis (its own CPU, `INFO cpu`, and `INFO commandstats` after `CONFIG RESETSTAT`) per request.
 * W2 is `findRefreshToken` then `rotateRefreshToken` at the same `now` (the two-call path); W3 is
 * `findCode` then `redeemCode` (no refresh token: W3's openid scope asks for none). W2x and W3x are
 * the one-step exchanges the token endpoint makes: `exchangeRefreshToken` (demo-client, a user's
 * token) and `exchangeCode` (PKCE, a refresh token stored with the code's `offline_access`).
 * `memory` runs the same steps on the memory engine (the Node baseline). Steps run over
 * `concurrency` loops, like requests over keep-alive connections.
 *
 *   REDIS_URL=redis://127.0.0.1:6379/5 node bench/redis-store.mjs [W2|W3|W2x|W3x] [redis|memory] [requests] [rounds] [concurrency]
 *
 * Redis's figures are the whole server's: give it a server (or a quiet moment) of its own. With
 * REDIS_CALLGRIND_PID, the pid of a redis-server run under `valgrind --tool=callgrind`, Redis's
 * instructions per request are printed too (user space only, independent of the machine's load).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const [id = 'W2', engineName = 'redis', count = '5000', roundsArg = '5', concurrencyArg = '4'] =
  process.argv.slice(2);
const REQUESTS = Number(count);
const ROUNDS = Number(roundsArg);
const CONCURRENCY = Number(concurrencyArg);
const root = new URL('../', import.meta.url);
const core = await import(new URL('packages/core/dist/index.js', root).href);
const engine = await import(new URL('packages/core/dist/engine.js', root).href);

// No default: CONFIG RESETSTAT is server-wide, so the server is named on purpose.
if (engineName === 'redis' && !process.env.REDIS_URL)
  throw new Error('set REDIS_URL (a server, or a database, of your own)');
const url = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const cliArgs = ['-h', url.hostname, '-p', url.port || '6379', '-n', url.pathname.slice(1) || '0'];
const redisCli = (...args) => execFileSync('redis-cli', [...cliArgs, ...args], { encoding: 'utf8' });
const info = (section) =>
  Object.fromEntries(
    redisCli('INFO', section)
      .split(/\r?\n/)
      .filter((line) => line.includes(':'))
      .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1)]),
  );
const redisCpu = () => {
  const fields = info('cpu');
  return Number(fields.used_cpu_user) + Number(fields.used_cpu_sys);
};

/** This process's read and write system calls so far (Linux `/proc/self/io`). */
function syscalls() {
  const io = readFileSync('/proc/self/io', 'utf8');
  return { reads: Number(/syscr: (\d+)/.exec(io)[1]), writes: Number(/syscw: (\d+)/.exec(io)[1]) };
}

/** Redis's instructions (callgrind, REDIS_CALLGRIND_PID) since the last call, or undefined. */
const callgrindPid = process.env.REDIS_CALLGRIND_PID;
function redisInstructions() {
  if (!callgrindPid) return undefined;
  execFileSync('callgrind_control', ['--dump', callgrindPid], { stdio: 'ignore' });
  // The newest dump, callgrind.out.<pid>.<n>, in the server's working directory (REDIS_CALLGRIND_DIR).
  const dir = process.env.REDIS_CALLGRIND_DIR ?? '.';
  const prefix = `callgrind.out.${callgrindPid}.`;
  const newest = readdirSync(dir)
    .filter((file) => file.startsWith(prefix))
    .sort((a, b) => Number(a.slice(prefix.length)) - Number(b.slice(prefix.length)))
    .at(-1);
  if (!newest) return undefined;
  return Number(/^totals: (\d+)/m.exec(readFileSync(`${dir}/${newest}`, 'utf8'))?.[1]);
}

let storage;
let close = async () => {};
if (engineName === 'redis') {
  const redis = await import(new URL('packages/redis/dist/index.js', root).href);
  // A long command timeout: under valgrind every step is ~50 times slower.
  storage = redis.redisStorage({
    url: url.href,
    prefix: `gatehouse_store_bench_${process.pid}`,
    commandTimeoutMs: 60_000,
  });
  await storage.ready();
  close = async () => {
    await storage.clear();
    await storage.close();
  };
} else {
  storage = core.memoryStorage();
}
const grants = storage.grants;
const USER = 'user-bench';

/** A fresh record of the workload's kind, stored; returns its hash. */
async function mint(now) {
  const hash = await engine.hashSecret(crypto.randomUUID());
  const grantId = crypto.randomUUID();
  if (id.startsWith('W2')) {
    await grants.saveRefreshToken({
      tokenHash: hash,
      grantId,
      clientId: 'demo-client',
      subject: { kind: 'user', userId: USER },
      scope: 'tickets:read offline_access',
      authTime: now,
      issuedAt: now,
      expiresAt: now + 600_000,
    });
  } else {
    await grants.saveCode({
      codeHash: hash,
      clientId: 'demo-client',
      userId: USER,
      grantId,
      redirectUri: 'http://127.0.0.1/callback',
      scope: id === 'W3x' ? 'openid tickets:read offline_access' : 'openid tickets:read',
      codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      authTime: now,
      expiresAt: now + 600_000,
    });
  }
  return hash;
}

/** One request's storage steps: the lookup, then the atomic consume, at one `now`. */
async function step(hash, nextHash) {
  const now = Date.now();
  if (id === 'W2x') {
    const result = await grants.exchangeRefreshToken(
      hash,
      { clientId: 'demo-client', next: { tokenHash: nextHash, expiresAt: now + 600_000 } },
      now,
    );
    if (result.status !== 'rotated') throw new Error(result.status);
  } else if (id === 'W3x') {
    const result = await grants.exchangeCode(
      hash,
      {
        clientId: 'demo-client',
        redirectUri: 'http://127.0.0.1/callback',
        redirectUriFitsDefault: false,
        verifierChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        keepUntil: now + 600_000,
        refreshToken: { tokenHash: nextHash, expiresAt: now + 600_000 },
      },
      now,
    );
    if (result.status !== 'redeemed' || !result.refreshTokenStored) throw new Error(result.status);
  } else if (id === 'W2') {
    const record = await grants.findRefreshToken(hash, now);
    if (!record) throw new Error('not found');
    const result = await grants.rotateRefreshToken(
      hash,
      { ...record, tokenHash: nextHash, issuedAt: now, expiresAt: now + 600_000 },
      now,
    );
    if (result.status !== 'rotated') throw new Error(result.status);
  } else {
    const code = await grants.findCode(hash, now);
    if (!code) throw new Error('not found');
    const result = await grants.redeemCode(hash, undefined, now, now + 600_000);
    if (result.status !== 'redeemed') throw new Error(result.status);
  }
}

async function run(n) {
  const now = Date.now();
  const hashes = [];
  for (let i = 0; i < n; i++) hashes.push(await mint(now));
  const next = await Promise.all(hashes.map(() => engine.hashSecret(crypto.randomUUID())));
  let cursor = 0;
  const loop = async () => {
    while (cursor < n) {
      const i = cursor++;
      await step(hashes[i], next[i]);
    }
  };
  if (engineName === 'redis') redisCli('CONFIG', 'RESETSTAT');
  const redisBefore = engineName === 'redis' ? redisCpu() : 0;
  if (engineName === 'redis') redisInstructions(); // zeroes the count (a dump)
  // Under `valgrind --tool=callgrind --instr-atstart=no` (BENCH_SELF_CALLGRIND=1): count this loop only.
  if (process.env.BENCH_SELF_CALLGRIND)
    execFileSync('callgrind_control', ['--instr=on', String(process.pid)]);
  const before = process.cpuUsage();
  const callsBefore = syscalls();
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  const used = process.cpuUsage(before);
  const callsAfter = syscalls();
  if (process.env.BENCH_SELF_CALLGRIND)
    execFileSync('callgrind_control', ['--instr=off', String(process.pid)]);
  const nodeMicros = (used.user + used.system) / n;
  const io = `${((callsAfter.reads - callsBefore.reads) / n).toFixed(2)} reads, ${((callsAfter.writes - callsBefore.writes) / n).toFixed(2)} writes per req`;
  if (engineName !== 'redis') return { nodeMicros, io };
  const redisMicros = ((redisCpu() - redisBefore) * 1e6) / n;
  const instructions = redisInstructions();
  const commands = Object.entries(info('commandstats'))
    .map(([key, value]) => ({
      command: key.replace('cmdstat_', ''),
      calls: Number(/calls=(\d+)/.exec(value)[1]) / n,
      usec: Number(/usec=(\d+)/.exec(value)[1]) / n,
    }))
    .filter((row) => !/^(config|info|select)/.test(row.command));
  return { nodeMicros, redisMicros, commands, io, redisInstructions: instructions && instructions / n };
}

try {
  await run(Math.min(REQUESTS, 2000)); // warm-up
  for (let round = 1; round <= ROUNDS; round++) {
    const { nodeMicros, redisMicros, commands, io, redisInstructions: perRequest } = await run(REQUESTS);
    let line = `round ${round} ${id} ${engineName}: node ${nodeMicros.toFixed(1)} µs CPU/req (${io})`;
    if (redisMicros !== undefined) {
      line += `; redis-server ${redisMicros.toFixed(1)} µs CPU/req`;
      if (perRequest) line += `, ${(perRequest / 1000).toFixed(1)} k instructions/req (callgrind)`;
    }
    console.log(line);
    if (commands && round === ROUNDS)
      for (const row of commands.sort((a, b) => b.usec - a.usec))
        console.log(
          `    ${row.command.padEnd(18)} ${row.calls.toFixed(2).padStart(6)} calls/req ${row.usec.toFixed(2).padStart(7)} µs/req inside`,
        );
  }
} finally {
  await close();
}
