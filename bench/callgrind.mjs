/**
 * Instructions per request, independent of the machine's load: runs bench/server.mjs under
 * `valgrind --tool=callgrind` and counts what the server process (every thread) executes for a
 * fixed number of requests of each workload, after a warm-up that lets V8 optimise the path. The
 * figure is the main thread's (see `--separate-threads` below); every thread's is printed too.
 *
 *   node bench/callgrind.mjs [express|koa|hono|fastify] [W0,W1,F1,W1h,W2,W2o,W3,W3o,F2] [requests] [warm-up requests] [tree]
 *
 * `CALLGRIND_ENGINE=redis|postgres` runs the server on that engine (default memory). W1h is Hono's
 * `requireAuth` handler form (Hono only). `CALLGRIND_BARE=1` runs the framework alone (the bench
 * server's `--bare` process, the one each target is paired with) for W0 and F2, the token
 * endpoint's floor (bench/token-floor.mjs): the same count then says how far W2 and W3 are from
 * what no token endpoint can skip, whatever the machine's load.
 *
 * W2 (refresh with rotation), W2o (the same with `openid`: a new ID token), W3 (code + PKCE without
 * `openid`) and W3o (code + PKCE with `openid`: an RS256 ID token by default) spend one credential
 * per request: all of them (warm-up and both passes) are minted before the warm-up, through the
 * bench server's `/bench/mint`, as bench/harness.mjs does. BENCH_ID_TOKEN_ALG=ES256 starts the
 * server with an ES256 key only, so that its ID tokens are ES256 (see bench/server.mjs).
 *
 * `tree` (default: this checkout) is the root of the checkout whose bench server to run, so two
 * builds can be compared with the same client (e.g. a worktree of an older commit). Requests are
 * sent over 4 keep-alive connections; each workload's count is the difference of two callgrind
 * dumps around its measured requests (`callgrind_control --zero`, then `--dump`), divided by the
 * number of requests. Throughput under valgrind means nothing; only the counts are reported. The
 * per-function profile of the last dump stays in the printed directory (`callgrind_annotate`).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const [adapter = 'express', list = 'W0,W1', count = '2000', warm = '4000', treeArg] = process.argv.slice(2);
const tree = treeArg ? path.resolve(treeArg) : fileURLToPath(new URL('../', import.meta.url));
const workloads = list.split(',');
const REQUESTS = Number(count);
const WARMUP = Number(warm);
const CONNECTIONS = 4;
const dir = mkdtempSync(path.join(os.tmpdir(), 'gatehouse-callgrind-'));
// The framework alone (W0 and F2 only): it mints nothing.
const BARE = process.env.CALLGRIND_BARE === '1';

// Older bench servers (round 1) know no --engine option: only the adapter is passed.
const child = spawn(
  'valgrind',
  [
    '--tool=callgrind',
    // One file per thread: the main thread (the event loop, and the garbage collection V8 does
    // on it) is the request's work; V8's compiler and GC helper threads run on their own schedule,
    // and a slower or busier machine gives them more to do per request.
    '--separate-threads=yes',
    `--callgrind-out-file=${dir}/callgrind.out.%p`,
    process.execPath,
    '--import',
    'tsx',
    'bench/server.mjs',
    '--adapter',
    adapter,
    // CALLGRIND_ENGINE=redis|postgres: the server's storage engine (REDIS_URL / DATABASE_URL).
    ...(process.env.CALLGRIND_ENGINE ? ['--engine', process.env.CALLGRIND_ENGINE] : []),
    ...(BARE ? ['--bare'] : []),
  ],
  { cwd: tree, stdio: ['ignore', 'pipe', 'pipe'], env: process.env },
);
// The server goes with this process, whatever happens to it.
process.once('exit', () => child.kill('SIGTERM'));
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(130));
let stderr = '';
child.stderr.on('data', (chunk) => {
  stderr += chunk;
});
const port = await new Promise((resolve, reject) => {
  let output = '';
  child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${output}\n${stderr}`)));
  child.stdout.on('data', (chunk) => {
    output += chunk;
    const match = /LISTENING (\d+)/.exec(output);
    if (match) resolve(Number(match[1]));
  });
});
const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });

/**
 * One request. A keep-alive connection the server closed while idle (its 5 s keep-alive timeout
 * passes easily under valgrind, e.g. while callgrind writes a dump) fails with ECONNRESET when
 * reused: such a request is sent again, once, on a new connection.
 */
async function request(method, target, headers = {}, body = undefined) {
  try {
    return await requestOnce(method, target, headers, body);
  } catch (error) {
    if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') throw error;
    return requestOnce(method, target, headers, body);
  }
}

function requestOnce(method, target, headers, body) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: target, headers, agent }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
    });
    req.once('error', reject);
    req.end(body);
  });
}

async function mint(kind, n) {
  const answer = await request('POST', `/bench/mint?kind=${kind}&count=${n}&lifetime=86400`);
  if (answer.status !== 200) throw new Error(`mint ${kind}: ${answer.status} ${answer.body}`);
  return JSON.parse(answer.body);
}
const [token] = BARE ? ['none'] : (await mint('access', 1)).tokens;
const CLIENT_BASIC = `Basic ${btoa('demo-client:demo-secret')}`;
const FORM = 'application/x-www-form-urlencoded';
/** Requests of a fresh-credential workload: one POST to the token endpoint per minted credential. */
async function fresh(kind, body) {
  // The warm-up, then per pass the settling requests and the measured ones.
  const { tokens, redirectUri, verifier } = await mint(kind, WARMUP + 2 * (SETTLE + REQUESTS));
  const redirect = encodeURIComponent(redirectUri);
  let next = 0;
  return {
    method: 'POST',
    target: '/demo/oauth2/v1/token',
    headers: () => ({ authorization: CLIENT_BASIC, 'content-type': FORM }),
    body: () => {
      if (next >= tokens.length) throw new Error(`${kind}: the minted credentials ran out`);
      return body(tokens[next++], redirect, verifier);
    },
  };
}
const refresh = (t) => `grant_type=refresh_token&refresh_token=${t}`;
const exchange = (c, redirect, verifier) =>
  `grant_type=authorization_code&code=${c}&redirect_uri=${redirect}&code_verifier=${verifier}`;
const SETTLE = 200;
const FRESH = {
  W2: () => fresh('refresh', refresh),
  W2o: () => fresh('refresh-openid', refresh),
  W3: () => fresh('code-api', exchange),
  W3o: () => fresh('code', exchange),
};
const get = (target, headers = {}) => ({ method: 'GET', target, headers: () => headers });
const ROUTES = {
  W0: get('/bench/ping'),
  W1: get('/bench/api', { authorization: `Bearer ${token}` }),
  F1: get('/bench/floor', { authorization: `Bearer ${token}` }),
  W1h: get('/bench/api-handler', { authorization: `Bearer ${token}` }),
  // The floor's body has W2's shape; the floor keeps no token, so one body serves every request.
  F2: {
    method: 'POST',
    target: '/bench/token-floor',
    headers: () => ({ authorization: CLIENT_BASIC, 'content-type': FORM }),
    body: () => refresh('r'.repeat(43)),
  },
};
for (const id of workloads) {
  if (BARE && id !== 'W0' && id !== 'F2') throw new Error(`${id}: the bare framework serves W0 and F2 only`);
  if (!BARE && id === 'F2') throw new Error('F2 is served by the bare framework: CALLGRIND_BARE=1');
  if (FRESH[id]) ROUTES[id] = await FRESH[id]();
  else if (!ROUTES[id]) throw new Error(`unknown workload ${id}`);
}

/** `n` requests of a workload over {@link CONNECTIONS} connections; throws on any non-2xx. */
async function send(id, n) {
  const { method, target, headers, body } = ROUTES[id];
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      const { status, body: answer } = await request(method, target, headers(), body?.());
      if (status < 200 || status > 299) throw new Error(`${id}: ${status} ${answer}`);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
}

const control = (...args) =>
  execFileSync('callgrind_control', [...args, String(child.pid)], { stdio: 'ignore' });

/** Instructions (Ir) of the newest dump: the main thread's, and every thread's. */
let dumps = 0;
function lastDumpTotals() {
  dumps++;
  let main = 0;
  let all = 0;
  for (const name of readdirSync(dir)) {
    // callgrind.out.<pid>.<dump>-<thread>
    const match = /^callgrind\.out\.\d+\.(\d+)-(\d+)$/.exec(name);
    if (!match || Number(match[1]) !== dumps) continue;
    const total = Number(/^totals: (\d+)/m.exec(readFileSync(path.join(dir, name), 'utf8'))?.[1] ?? 0);
    all += total;
    if (Number(match[2]) === 1) main = total;
  }
  return { main, all };
}

for (const id of workloads) await send(id, WARMUP);
const results = {};
// Two passes, interleaved, so that a slow drift of the server (heap growth) shows as a difference.
for (let pass = 1; pass <= 2; pass++) {
  for (const id of workloads) {
    await send(id, SETTLE); // settle this route's inline caches after the previous one
    control('--zero');
    await send(id, REQUESTS);
    control('--dump');
    const { main, all } = lastDumpTotals();
    const perRequest = main / REQUESTS;
    results[id] ??= [];
    results[id].push(perRequest);
    console.log(
      `pass ${pass} ${adapter} ${id}: ${(perRequest / 1000).toFixed(1)} k instr/req (main thread; all threads ${(all / REQUESTS / 1000).toFixed(1)} k)`,
    );
  }
}
agent.destroy();
child.kill('SIGTERM');
const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
const base = results.W0 ? mean(results.W0) : undefined;
for (const id of workloads) {
  const value = mean(results[id]);
  console.log(
    `${adapter} ${id}: ${(value / 1000).toFixed(1)} k instr/req (main thread, mean of the passes)` +
      (base && id !== 'W0'
        ? `  (Δ ${((value - base) / 1000).toFixed(1)} k, ×W0 ${(base / value).toFixed(3)})`
        : ''),
  );
}
console.log(`dumps: ${dir}`);
