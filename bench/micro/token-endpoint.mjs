/**
 * CPU per token request in process (no HTTP, no framework), for one or more checkouts side by side:
 * each checkout's demo instance answers W2 (refresh with rotation, `demo-client` with Basic), W3
 * (code + PKCE, no `openid`) or W3o (code + PKCE with `openid`: an ID token) requests as the Node
 * adapters hand them over (a `BufferedRequest`, answered with `answerOf`: no `Response` built).
 * Credentials are minted through the memory GrantStore before each batch. The checkouts' batches
 * alternate, so a loaded machine slows them alike; printed per checkout: the median CPU µs per
 * request of the batches (process.cpuUsage: every thread, the thread pool's signatures included)
 * and the main thread's (Linux /proc: the event loop's work alone), plus the memory kv calls.
 *
 *   node --import tsx bench/micro/token-endpoint.mjs [W2|W3|W3o] [batch] [batches] [tree …]
 *
 * `tree` defaults to this checkout; give an older worktree first to compare (its packages built).
 * BENCH_ID_TOKEN_ALG=ES256: instances with an ES256 key only, so their ID tokens are ES256.
 * BENCH_PROFILE=<file>: a V8 CPU profile of the measured batches (of the last tree).
 * BENCH_HEAP_PROFILE=<file>: a sampling allocation profile of the same batches, collected objects
 * included (what the garbage collector has to handle, not only what stays), and the allocating
 * functions with the most bytes per request printed.
 * Instructions per request (load-independent), e.g. W2 of two checkouts:
 *   BENCH_CALLGRIND=/tmp/cg valgrind --tool=callgrind --separate-threads=yes \
 *     --callgrind-out-file=/tmp/cg/cg.%p node --import tsx bench/micro/token-endpoint.mjs W2 300 2 ../old .
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const [id = 'W2', batchArg = '2000', batchesArg = '7', ...treeArgs] = process.argv.slice(2);
// `tree@ES256`: that checkout's instance with an ES256 key only (ES256 ID tokens), so that the ID
// token's algorithm can be compared within one run (the same tree twice, with and without).
const trees =
  treeArgs.length > 0
    ? treeArgs.map((t) => path.resolve(t.replace(/@ES256$/, '')) + (t.endsWith('@ES256') ? '@ES256' : ''))
    : [fileURLToPath(new URL('../../', import.meta.url))];
const batch = Number(batchArg);
const allES256 = process.env.BENCH_ID_TOKEN_ALG === 'ES256';
const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

async function setup(spec) {
  const es256 = allES256 || spec.endsWith('@ES256');
  const tree = spec.replace(/@ES256$/, '');
  const at = (file) => pathToFileURL(path.join(tree, file)).href;
  const core = await import(at('packages/core/dist/index.js'));
  // Checkouts before the engine entry (round 3) export hashSecret from the main entry.
  const engine = await import(at('packages/core/dist/engine.js')).catch(() => core);
  // Checkouts since issue 42 keep the bridge's light request internal: it is loaded from its source
  // (tsx), which reads the same registered symbols as the built core.
  const BufferedRequest =
    (await import(at('packages/core/dist/node.js'))).BufferedRequest ??
    (await import(at('packages/core/src/node/buffered-request.ts'))).BufferedRequest;
  const { answerOf } = await import(at('packages/core/dist/adapter.js'));
  const { createDemo, DEMO } = await import(at('examples/demo/src/index.ts'));
  const storage = core.memoryStorage();
  const calls = new Map();
  for (const name of new Set([
    ...Object.getOwnPropertyNames(Object.getPrototypeOf(storage.kv)),
    ...Object.keys(storage.kv),
  ])) {
    const f = storage.kv[name];
    if (name === 'constructor' || typeof f !== 'function') continue;
    storage.kv[name] = (...args) => {
      calls.set(name, (calls.get(name) ?? 0) + 1);
      return f.apply(storage.kv, args);
    };
  }
  const demo = await createDemo({
    port: 1,
    host: '127.0.0.1',
    warn: () => {},
    overrides: { storage, ...(es256 ? { keys: [await core.generateKeys('ES256')] } : {}) },
  });
  const instance = demo.gatehouse;
  const basic = `Basic ${btoa(`${DEMO.client.id}:${DEMO.client.secret}`)}`;
  const url = `${demo.issuer}/oauth2/v1/token`;
  const redirect = encodeURIComponent(demo.redirectUri);
  async function mint(n) {
    const out = [];
    const now = Date.now();
    for (let i = 0; i < n; i++) {
      const secret = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
      const hash = await engine.hashSecret(secret);
      if (id === 'W2') {
        await storage.grants.saveRefreshToken({
          tokenHash: hash,
          grantId: crypto.randomUUID(),
          clientId: DEMO.client.id,
          subject: { kind: 'user', userId: DEMO.user.id },
          scope: 'tickets:read offline_access',
          authTime: now,
          issuedAt: now,
          expiresAt: now + 3_600_000,
        });
        out.push(`grant_type=refresh_token&refresh_token=${secret}`);
      } else {
        await storage.grants.saveCode({
          codeHash: hash,
          clientId: DEMO.client.id,
          userId: DEMO.user.id,
          grantId: crypto.randomUUID(),
          redirectUri: demo.redirectUri,
          scope: id === 'W3o' ? 'openid tickets:read' : 'tickets:read offline_access',
          codeChallenge: challenge,
          authTime: now,
          expiresAt: now + 3_600_000,
        });
        out.push(
          `grant_type=authorization_code&code=${secret}&redirect_uri=${redirect}&code_verifier=${verifier}`,
        );
      }
    }
    return out;
  }
  async function run(bodies) {
    for (const body of bodies) {
      const bytes = Buffer.from(body);
      const headers = new Headers({
        authorization: basic,
        'content-type': 'application/x-www-form-urlencoded',
        'content-length': String(bytes.length),
      });
      const answer = await answerOf(instance, new BufferedRequest('POST', url, headers, bytes));
      if (answer.status !== 200) throw new Error(`${tree}: ${answer.status} ${answer.body}`);
    }
  }
  return {
    tree: es256 ? `${tree} (ES256 ID tokens)` : tree,
    mint,
    run,
    calls,
    cpu: [],
    main: 0,
    instructions: 0,
  };
}

/** The main thread's CPU time (Linux), in clock ticks of 10 ms. */
const mainTicks = () => {
  const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ').at(-1).split(' ');
  return Number(fields[11]) + Number(fields[12]);
};

/**
 * BENCH_CALLGRIND=<dir>: the script runs under `valgrind --tool=callgrind --separate-threads=yes
 * --callgrind-out-file=<dir>/cg.%p`; each measured batch is zeroed before and dumped after, and the
 * main thread's instructions (load-independent) are summed per checkout.
 */
const callgrind = process.env.BENCH_CALLGRIND;
const { execFile } = await import('node:child_process');
const callgrindControl = (flag) =>
  new Promise((resolve, reject) =>
    execFile('callgrind_control', [flag, String(process.pid)], (error) =>
      error ? reject(error) : resolve(),
    ),
  );
let dumps = 0;
async function dumpedInstructions() {
  await callgrindControl('--dump');
  dumps++;
  const file = path.join(callgrind, `cg.${process.pid}.${dumps}-01`);
  return Number(/^totals: (\d+)/m.exec(readFileSync(file, 'utf8'))?.[1] ?? Number.NaN);
}

const setups = [];
for (const tree of trees) setups.push(await setup(tree));
for (const s of setups) await s.run(await s.mint(batch)); // warm-up
for (const s of setups) s.calls.clear();
const heapProfile = process.env.BENCH_HEAP_PROFILE;
const session =
  process.env.BENCH_PROFILE || heapProfile ? new (await import('node:inspector')).Session() : undefined;
const post = (method, params) =>
  new Promise((resolve, reject) => session.post(method, params, (e, r) => (e ? reject(e) : resolve(r))));
for (let b = 0; b < Number(batchesArg); b++) {
  for (const s of setups) {
    const bodies = await s.mint(batch);
    const profiling = session && s === setups.at(-1);
    if (profiling && b === 0) {
      session.connect();
      if (heapProfile) {
        await post('HeapProfiler.enable');
        await post('HeapProfiler.startSampling', {
          samplingInterval: 256,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: true,
        });
      } else {
        await post('Profiler.enable');
        await post('Profiler.setSamplingInterval', { interval: 100 });
        await post('Profiler.start');
      }
    }
    if (callgrind) await callgrindControl('--zero');
    const before = process.cpuUsage();
    const ticks = mainTicks();
    await s.run(bodies);
    const used = process.cpuUsage(before);
    if (callgrind) s.instructions += await dumpedInstructions();
    s.main += mainTicks() - ticks;
    s.cpu.push((used.user + used.system) / batch);
  }
}
const requests = batch * Number(batchesArg);
if (session && heapProfile) {
  const { profile } = await post('HeapProfiler.stopSampling');
  writeFileSync(heapProfile, JSON.stringify(profile));
  // Bytes allocated per request by each function (self), summed over its call sites.
  const bytes = new Map();
  const visit = (node) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const name = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(packages|node_modules)\//, '$1/')}:${lineNumber + 1}`;
    bytes.set(name, (bytes.get(name) ?? 0) + node.selfSize);
    for (const child of node.children) visit(child);
  };
  visit(profile.head);
  const total = [...bytes.values()].reduce((a, b) => a + b, 0);
  console.log(`allocated: ${(total / requests).toFixed(0)} B/req (sampled)`);
  for (const [name, size] of [...bytes].sort((a, b) => b[1] - a[1]).slice(0, 30))
    console.log(`  ${(size / requests).toFixed(0).padStart(6)} B/req  ${name}`);
} else if (session)
  writeFileSync(process.env.BENCH_PROFILE, JSON.stringify((await post('Profiler.stop')).profile));
for (const s of setups) {
  s.cpu.sort((a, b) => a - b);
  const kv = [...s.calls].map(([k, v]) => `${k} ${(v / requests).toFixed(2)}`).join(', ') || 'none';
  console.log(
    `${id} ${s.tree}: median ${s.cpu[s.cpu.length >> 1].toFixed(1)} µs CPU/req (all threads; min ${s.cpu[0].toFixed(1)}), main thread ${((s.main * 10_000) / requests).toFixed(1)} µs/req${callgrind ? `, ${(s.instructions / requests / 1000).toFixed(1)} k instructions/req (main thread)` : ''}, kv calls/req: ${kv}`,
  );
}
process.exit(0);
