/**
 * Shared pieces of the HTTP benchmark (bench/run.mjs) and the profiler (bench/profile.mjs): the
 * workloads, the bench server process, one autocannon measurement.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const root = fileURLToPath(new URL('../', import.meta.url));

const CLIENT_BASIC = `Basic ${btoa('demo-client:demo-secret')}`;
const USER_BASIC = `Basic ${btoa('demo:demo-password')}`;
const SERVICE_BASIC = `Basic ${btoa('demo-service:demo-service-secret')}`;
const FORM = 'application/x-www-form-urlencoded';

/** W3's requests: one code exchange per minted code of `kind` (the PKCE verifier is the server's). */
async function codeExchanges(server, kind, budget, lifetime) {
  // Also tells the redirect URI and the PKCE verifier.
  const codes = await server.mint(kind, budget, lifetime);
  const redirect = encodeURIComponent(server.redirectUri);
  return freshBodies(
    '/demo/oauth2/v1/token',
    codes,
    (c) =>
      `grant_type=authorization_code&code=${c}&redirect_uri=${redirect}&code_verifier=${server.verifier}`,
  );
}

/** The ID tokens' algorithm of W2o and W3o: RS256, or ES256 with BENCH_ID_TOKEN_ALG=ES256 (bench/server.mjs). */
const ID_TOKEN_ALG = process.env.BENCH_ID_TOKEN_ALG === 'ES256' ? 'ES256' : 'RS256';

/**
 * The workloads. `prepare(server, budget, lifetime)` returns autocannon `requests`; `fresh`
 * workloads use one credential per request, `budget` of them, valid for `lifetime` seconds, all
 * minted before the measurement starts.
 */
export const WORKLOADS = [
  {
    id: 'W0',
    name: 'unprotected route (ceiling)',
    prepare: async () => [{ method: 'GET', path: '/bench/ping' }],
  },
  {
    id: 'W1',
    name: 'bearer-protected route (requireAuth, JWT)',
    prepare: async (server) => {
      const [token] = await server.mint('access', 1);
      return [{ method: 'GET', path: '/bench/api', headers: { authorization: `Bearer ${token}` } }];
    },
  },
  {
    // Not in the default set (BENCH_WORKLOADS=W0,W1,W1d adds it): W1 with a DPoP-bound token and a
    // fresh proof per request (RFC 9449 §7), all proofs signed before the window.
    id: 'W1d',
    name: 'DPoP-protected route (requireAuth, DPoP-bound JWT, a fresh proof per request)',
    fresh: true,
    prepare: (server, budget) => dpopRequests(server, budget),
  },
  {
    // Not in the default set (BENCH_WORKLOADS=W0,W1,W1h adds it), Hono only: W1 through
    // requireAuth's handler form, a route of one handler (Hono runs it without composing a chain).
    id: 'W1h',
    name: 'bearer-protected route (requireAuth handler form, JWT)',
    adapters: ['hono'],
    prepare: async (server) => {
      const [token] = await server.mint('access', 1);
      return [{ method: 'GET', path: '/bench/api-handler', headers: { authorization: `Bearer ${token}` } }];
    },
  },
  {
    // Not in the default set (BENCH_WORKLOADS=W0,F1,W1 adds it): a middleware that only reads the
    // Authorization header, i.e. what the framework charges for any middleware, under W1.
    id: 'F1',
    name: 'header-reading no-op middleware (framework floor under W1)',
    prepare: async (server) => {
      const [token] = await server.mint('access', 1);
      return [{ method: 'GET', path: '/bench/floor', headers: { authorization: `Bearer ${token}` } }];
    },
  },
  {
    // Measured on the framework's bare process (`bare: true`; bench/floor.mjs): the work no token
    // endpoint can skip (bench/token-floor.mjs), W2's body shape with a fresh-looking token.
    id: 'F2',
    name: 'token-endpoint floor (form, Basic, 3 × SHA-256, ES256 signature; bare framework)',
    bare: true,
    prepare: async () => [
      {
        method: 'POST',
        path: '/bench/token-floor',
        headers: { authorization: CLIENT_BASIC, 'content-type': FORM },
        body: `grant_type=refresh_token&refresh_token=${'r'.repeat(43)}`,
      },
    ],
  },
  {
    id: 'W2',
    name: 'token endpoint, refresh grant (rotation)',
    fresh: true,
    prepare: async (server, budget, lifetime) =>
      freshBodies(
        '/demo/oauth2/v1/token',
        await server.mint('refresh', budget, lifetime),
        (t) => `grant_type=refresh_token&refresh_token=${t}`,
      ),
  },
  {
    // Not in the default set: refresh of an OpenID Connect grant, which signs a new ID token.
    id: 'W2o',
    name: `token endpoint, refresh grant with openid (ID token, ${ID_TOKEN_ALG})`,
    fresh: true,
    prepare: async (server, budget, lifetime) =>
      freshBodies(
        '/demo/oauth2/v1/token',
        await server.mint('refresh-openid', budget, lifetime),
        (t) => `grant_type=refresh_token&refresh_token=${t}`,
      ),
  },
  {
    // The code exchange of an API client: no openid, so no ID token (issue 46's method).
    id: 'W3',
    name: 'token endpoint, authorization_code + PKCE, no openid',
    fresh: true,
    prepare: async (server, budget, lifetime) => codeExchanges(server, 'code-api', budget, lifetime),
  },
  {
    // Not in the default set: an OpenID Connect sign-in's code exchange (W3 before issue 46).
    id: 'W3o',
    name: `token endpoint, authorization_code + PKCE, scope openid (ID token, ${ID_TOKEN_ALG})`,
    fresh: true,
    prepare: async (server, budget, lifetime) => codeExchanges(server, 'code', budget, lifetime),
  },
  {
    id: 'W4',
    name: 'introspection of a valid access token',
    prepare: async (server) => {
      const [token] = await server.mint('access', 1);
      return [
        {
          method: 'POST',
          path: '/demo/oauth2/v1/introspect',
          headers: { authorization: CLIENT_BASIC, 'content-type': FORM },
          body: `token=${token}`,
        },
      ];
    },
  },
  {
    // A backend acting for itself (RFC 6749 §4.4): Basic authentication and one access token signed
    // per request, nothing stored.
    id: 'W6',
    name: 'token endpoint, client_credentials (demo-service, Basic)',
    prepare: async () => [
      {
        method: 'POST',
        path: '/demo/oauth2/v1/token',
        headers: { authorization: SERVICE_BASIC, 'content-type': FORM },
        body: 'grant_type=client_credentials&scope=tickets%3Aread',
      },
    ],
  },
  {
    id: 'W5',
    name: 'Auth API password login (PBKDF2-SHA256, 100,000 iterations)',
    prepare: async () => [
      { method: 'POST', path: '/demo/auth/v1/token', headers: { authorization: USER_BASIC } },
    ],
  },
];

const b64url = (value) => Buffer.from(value).toString('base64url');

/** A DPoP proof (RFC 9449 §4.2) signed with Web Crypto: ES256, the JWS signature being r ‖ s. */
async function signProof(keyPair, jwk, claims) {
  const input = `${b64url(JSON.stringify({ typ: 'dpop+jwt', alg: 'ES256', jwk }))}.${b64url(
    JSON.stringify({ iat: Math.floor(Date.now() / 1000), jti: crypto.randomUUID(), ...claims }),
  )}`;
  const signature = await crypto.subtle.sign(
    { name: 'ECDSA', hash: 'SHA-256' },
    keyPair.privateKey,
    Buffer.from(input),
  );
  return `${input}.${b64url(new Uint8Array(signature))}`;
}

/**
 * W1d's requests: a DPoP-bound access token obtained at the real token endpoint (a minted code,
 * redeemed with a proof), then `budget` proofs of `GET /bench/api` carrying its `ath`.
 */
async function dpopRequests(server, budget) {
  const keyPair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, [
    'sign',
    'verify',
  ]);
  const { kty, crv, x, y } = await crypto.subtle.exportKey('jwk', keyPair.publicKey);
  const jwk = { kty, crv, x, y };
  const [code] = await server.mint('code-api', 1, 120);
  const tokenUrl = `${server.url}/demo/oauth2/v1/token`;
  const response = await fetch(tokenUrl, {
    method: 'POST',
    headers: {
      authorization: CLIENT_BASIC,
      'content-type': FORM,
      dpop: await signProof(keyPair, jwk, { htm: 'POST', htu: tokenUrl }),
    },
    body: `grant_type=authorization_code&code=${code}&redirect_uri=${encodeURIComponent(server.redirectUri)}&code_verifier=${server.verifier}`,
  });
  const body = await response.json();
  if (body.token_type !== 'DPoP') throw new Error(`W1d: no DPoP-bound token: ${JSON.stringify(body)}`);
  const token = body.access_token;
  const ath = b64url(new Uint8Array(await crypto.subtle.digest('SHA-256', Buffer.from(token))));
  const proofs = [];
  for (let i = 0; i < budget; i++)
    proofs.push(await signProof(keyPair, jwk, { htm: 'GET', htu: `${server.url}/bench/api`, ath }));
  let next = 0;
  return [
    {
      method: 'GET',
      path: '/bench/api',
      setupRequest: (request) => ({
        ...request,
        headers: {
          ...request.headers,
          authorization: `DPoP ${token}`,
          dpop: proofs[Math.min(next++, proofs.length - 1)],
        },
      }),
    },
  ];
}

/**
 * One request per credential, each credential used once, with a cursor shared by all connections.
 * Every credential is minted before the measured window starts (see {@link measure}), so minting
 * never competes with the workload for the server's CPU. If the pool still runs dry, the last
 * credential is reused: those requests fail and the run is reported INVALID, never hidden.
 */
function freshBodies(path, credentials, body) {
  const bodies = credentials.map(body);
  let next = 0;
  return [
    {
      method: 'POST',
      path,
      headers: { authorization: CLIENT_BASIC, 'content-type': FORM },
      setupRequest: (request) => ({ ...request, body: bodies[Math.min(next++, bodies.length - 1)] }),
    },
  ];
}

/**
 * Starts bench/server.mjs for an adapter on an engine (`memory`, `redis`: REDIS_URL, `postgres`:
 * DATABASE_URL) and returns a handle once it listens. `adapter` of the handle names both
 * (`express`, `express+redis`). `bare`: the framework alone (`express bare`), W0's process.
 */
export function startServer(adapter, nodeOptions = [], engine = 'memory', bare = false, processes = 1) {
  const child = spawn(
    process.execPath,
    [
      ...nodeOptions,
      '--import',
      'tsx',
      'bench/server.mjs',
      '--adapter',
      adapter,
      '--engine',
      engine,
      ...(bare ? ['--bare'] : []),
      ...(processes > 1 ? ['--processes', String(processes)] : []),
    ],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    let output = '';
    child.once('exit', (code) => reject(new Error(`${adapter} server exited with ${code}: ${output}`)));
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /LISTENING (\d+)/.exec(output);
      if (!match) return;
      child.stdout.removeAllListeners('data');
      child.stdout.resume();
      const url = `http://127.0.0.1:${match[1]}`;
      const server = {
        adapter:
          (bare ? `${adapter} bare` : engine === 'memory' ? adapter : `${adapter}+${engine}`) +
          (processes > 1 ? ` ×${processes}` : ''),
        url,
        child,
        redirectUri: '',
        verifier: '',
        async mint(kind, count, lifetime = 1800) {
          const response = await fetch(`${url}/bench/mint?kind=${kind}&count=${count}&lifetime=${lifetime}`, {
            method: 'POST',
          });
          if (!response.ok)
            throw new Error(`mint ${kind} failed: ${response.status} ${await response.text()}`);
          const answer = await response.json();
          server.redirectUri = answer.redirectUri;
          server.verifier = answer.verifier;
          return answer.tokens;
        },
      };
      resolve(server);
    });
  });
}

/** Assumed rate of a fresh-credential workload the first time it runs on a server (req/s). */
const FIRST_RATE = 6000;

/**
 * Runs autocannon for one workload on one server. Fresh credentials (W2, W3) are minted up front,
 * before autocannon starts: three times the rate this workload last reached on this server, and
 * never less than {@link FIRST_RATE}, for the whole window plus a second. The last rate is often
 * the cold warm-up's, which the warmed-up server can beat by more than 2×: a 1.5× pool ran dry in
 * run F (Hono W2, round 1), a 2× one in run T (Hono W2: a warm-up under 3,000 req/s, then 6,437).
 * Unused ones stay in the server's memory until they expire, which is why the pool follows the
 * measured rate.
 */
export async function measure(server, workload, seconds, connections = 32) {
  const last = server.lastRps?.[workload.id];
  const budget = workload.fresh ? Math.ceil(Math.max(last ? last * 3 : 0, FIRST_RATE) * (seconds + 1)) : 1;
  // Pool credentials live for the window plus a margin: the ones left unused then expire, and the
  // memory engine's incremental sweep drops them, so the pools of earlier windows do not pile up
  // in the server's heap (a first version of this reached ~1 GB RSS over a full run).
  // On Redis and PostgreSQL minting is one write per credential and, on a loaded machine, can take
  // longer than the window itself: their credentials live 10 minutes (nothing piles up in the server).
  const onEngine = server.adapter.includes('+');
  const requests = await workload.prepare(server, budget, seconds + (onEngine ? 600 : 30));
  await settle(server.child.pid);
  const counter = await countInstructions(server.child.pid);
  const engine = onEngine ? server.adapter.slice(server.adapter.indexOf('+') + 1).split(' ')[0] : undefined;
  // PostgreSQL: the backends of the bench's own database when they can be told apart.
  const engineName = engine === 'postgres' && OWN_DATABASE ? 'postgres (own database)' : engine;
  const engineBefore = engine && engineCpu()[engineName];
  const cpuBefore = cpuTicks(server.child.pid);
  const result = await autocannon({
    url: server.url,
    connections,
    duration: seconds,
    requests,
    timeout: 10,
  });
  const cpuAfter = cpuTicks(server.child.pid);
  const engineAfter = engine && engineCpu()[engineName];
  const instructions = await counter.stop();
  const total = result.requests.total;
  const failed = result.non2xx + result.errors + result.timeouts;
  const run = {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    invalid: total === 0 || failed / total > 0.01,
    minted: workload.fresh ? budget : 0,
    // Instructions the server executed per request (user and kernel), when `perf` can count them.
    instructionsPerRequest: instructions === undefined || total === 0 ? undefined : instructions / total,
    // CPU time the server used per request (user and kernel, µs), where Linux's /proc tells it.
    cpuMicrosPerRequest:
      cpuBefore === undefined || cpuAfter === undefined || total === 0
        ? undefined
        : ((cpuAfter - cpuBefore) * 1e6) / CLOCK_TICKS_PER_SECOND / total,
    // The engine's CPU (redis-server, or all postgres processes) per request, µs: an upper bound
    // on a shared server (other clients count too; postgres backends that exit are missed).
    engineMicrosPerRequest:
      engineBefore === undefined || engineAfter === undefined || total === 0
        ? undefined
        : ((engineAfter - engineBefore) * 1e6) / total,
  };
  server.lastRps = { ...server.lastRps, [workload.id]: run.rps };
  return run;
}

/**
 * Counts the instructions a process executes until `stop()`, with `perf stat` attached to it.
 * On a VM whose speed drifts (runs here swung by ±20 % within a minute), throughput ratios need
 * many pairs to settle, while the instructions per request of a workload repeat to within 1 %
 * run after run: the benchmark reports both. Without `perf`, or where the machine does not expose
 * the counter, `stop()` resolves to `undefined` and only throughput is reported.
 */
async function countInstructions(pid) {
  if (!(await perfCanCount())) return { stop: async () => undefined };
  const perf = spawn('perf', ['stat', '-x', ',', '-e', 'instructions', '-p', String(pid)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  perf.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise((resolve) => perf.once('close', resolve));
  // perf prints nothing once attached; give it a moment before the load starts.
  await new Promise((resolve) => setTimeout(resolve, 200));
  return {
    async stop() {
      perf.kill('SIGINT');
      await exited;
      const count = Number(/^(\d+),[^,]*,instructions/m.exec(output)?.[1]);
      return Number.isFinite(count) && count > 0 ? count : undefined;
    },
  };
}

let perfProbe;

/** Whether `perf stat` can count instructions here (once per process). */
function perfCanCount() {
  perfProbe ??= new Promise((resolve) => {
    const probe = spawn('perf', ['stat', '-x', ',', '-e', 'instructions', 'true'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let output = '';
    probe.stderr.on('data', (chunk) => {
      output += chunk;
    });
    probe.once('error', () => resolve(false));
    probe.once('close', (code) => resolve(code === 0 && /^\d+,[^,]*,instructions/m.test(output)));
  });
  return perfProbe;
}

/**
 * Waits until a process has stopped working: its CPU time (Linux `/proc/<pid>/stat`) grows by at
 * most one clock tick in 250 ms, or 10 s have passed. Work left over from the previous run (W5's
 * password hashes still running on the thread pool when autocannon stops) then no longer lands in
 * the next run's throughput and instruction count (run H: a W0 right after W5 counted 858 k
 * instructions per request instead of ~620 k). Elsewhere than Linux it returns at once.
 */
async function settle(pid) {
  let last = cpuTicks(pid);
  if (last === undefined) return;
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = cpuTicks(pid);
    if (now === undefined || now - last <= 1) return;
    last = now;
  }
}

/**
 * The CPU time (user + system, in clock ticks) a process has used so far, from Linux's
 * `/proc/<pid>/stat`; `undefined` elsewhere. Where `perf` cannot count instructions (a VM without
 * the counter), CPU time per request is the next best measure of work: unlike throughput it does
 * not drop when other processes take the CPU, though cache effects still leak in.
 */
function cpuTicks(pid) {
  try {
    // Fields after the command name (which may contain spaces): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').at(-1).split(' ');
    // A server of several processes (bench/server.mjs --processes): its workers count too.
    let ticks = Number(fields[11]) + Number(fields[12]);
    for (const child of childPids(pid)) ticks += cpuTicks(child) ?? 0;
    return ticks;
  } catch {
    return undefined;
  }
}

/** The child processes of `pid` (Linux /proc; none where it cannot tell). */
function childPids(pid) {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** `getconf CLK_TCK`: the unit of /proc's CPU times (100 on every common Linux). */
const CLOCK_TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU seconds (user + system) used so far by the local redis-server and postgres processes (Linux). */
export function engineCpu() {
  const totals = {};
  try {
    const ticks = 100; // USER_HZ
    for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
      let stat;
      try {
        stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      } catch {
        continue;
      }
      const name = /\(([^)]*)\)/.exec(stat)?.[1] ?? '';
      const engine = name.startsWith('redis-server')
        ? 'redis'
        : name.startsWith('postgres')
          ? 'postgres'
          : '';
      if (!engine) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const seconds = (Number(fields[11]) + Number(fields[12])) / ticks;
      totals[engine] = (totals[engine] ?? 0) + seconds;
      // The backends serving the bench's own database (their process title names it): other
      // databases' clients on a shared server are left out (the WAL writer and checkpointer too).
      if (engine === 'postgres' && OWN_DATABASE) {
        let title = '';
        try {
          title = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        } catch {}
        // `postgres: [<cluster>: ]<user> <database> <client> <state>`
        if (/^postgres: (?:[^:\s]+: )?\S+ (\S+) /.exec(title)?.[1] === OWN_DATABASE)
          totals['postgres (own database)'] = (totals['postgres (own database)'] ?? 0) + seconds;
      }
    }
  } catch {}
  return totals;
}

/** The database of DATABASE_URL, whose backends `engineCpu` also counts apart. */
const OWN_DATABASE = (() => {
  try {
    return decodeURIComponent(new URL(process.env.DATABASE_URL).pathname.slice(1)) || undefined;
  } catch {
    return undefined;
  }
})();

/**
 * Sends one of a workload's prepared requests (a fresh-credential workload gives each request its
 * body through autocannon's `setupRequest`) and reads the answer; throws on a non-2xx answer.
 */
export async function sendPrepared(server, prepared) {
  const request = prepared.setupRequest ? prepared.setupRequest({ ...prepared }) : prepared;
  const response = await fetch(server.url + request.path, {
    method: request.method,
    headers: request.headers,
    body: request.body,
  });
  if (!response.ok) throw new Error(`${request.path}: ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
}
