/**
 * Many instances in one process (issue 18), through the public API of the built package:
 *
 * 1. RSS and V8 heap with 1,000 and then 10,000 instances, each resolved once (a metadata request),
 *    every one with its own imported signing key, its own client store (two clients) and user store
 *    (one user), on one shared memory engine. Garbage collected before each reading.
 * 2. The first request of a cold instance (resolve + options check + key import + answer) against
 *    the same request to a live one: medians and p95 over `COLD` instances.
 * 3. W1's Gatehouse part (the bearer check of a known token, `withAuthentication` of
 *    `@gatehousejs/core/adapter`, as `requireAuth` runs it) through a host vs a single instance,
 *    interleaved rounds; the framework's share (identical for both) is left out, so the relative
 *    difference is an upper bound of what an adapter's W1 loses.
 *
 * Run: `node --expose-gc bench/hosts.mjs` (needs a build).
 */
const core = await import('../packages/core/dist/index.js');
const { withAuthentication } = await import('../packages/core/dist/adapter.js');

const ORIGIN = 'http://localhost:3000';
const COLD = Number(process.env.BENCH_COLD ?? 200);
const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
const settle = () => {
  globalThis.gc?.();
  globalThis.gc?.();
  return process.memoryUsage();
};
const hasher = core.pbkdf2Hasher({ iterations: 1000 });
const passwordHash = await hasher.hash('demo-password');
const secretHash = await core.hashClientSecret('demo-secret');
// 64 distinct keys, handed out in turn: every instance still imports its own CryptoKey.
const keyPool = await Promise.all(Array.from({ length: 64 }, () => core.generateKeys('ES256')));
let next = 0;

function instanceOptions(name) {
  return {
    keys: [keyPool[next++ % keyPool.length]],
    clients: core.memoryClientStore([
      {
        id: 'demo-client',
        type: 'confidential',
        secretHash,
        redirectUris: [`${ORIGIN}/callback`],
        firstParty: true,
      },
      { id: 'demo-spa', type: 'public', redirectUris: [`${ORIGIN}/callback`], firstParty: true },
    ]),
    users: core.memoryUserStore([{ id: `user-${name}`, username: 'demo', passwordHash }], { hasher }),
    logger: { warn() {}, error() {} },
  };
}

const host = core.createGatehouseHost({
  origin: ORIGIN,
  storage: core.memoryEngine(),
  maxLiveInstances: 20_000,
  resolve: (name) => (name.startsWith('t') ? instanceOptions(name) : null),
});
const metadata = (name) =>
  host.fetch(new Request(`${ORIGIN}/${name}/.well-known/oauth-authorization-server`));

// 1. Memory.
const before = settle();
const rows = [];
let created = 0;
for (const target of [1, 1_000, 10_000]) {
  for (; created < target; created++) {
    const response = await metadata(`t${created}`);
    if (response.status !== 200) throw new Error(`instance t${created}: ${response.status}`);
  }
  const after = settle();
  rows.push({ target, after });
}
console.log(`\n### many instances: memory (Node ${process.version})\n`);
console.log('| instances live | RSS | V8 heap used | heap per instance |');
console.log('|---:|---:|---:|---:|');
console.log(`| 0 | ${mb(before.rss)} | ${mb(before.heapUsed)} | |`);
for (const { target, after } of rows) {
  console.log(
    `| ${target.toLocaleString('en')} | ${mb(after.rss)} | ${mb(after.heapUsed)} | ${((after.heapUsed - before.heapUsed) / target / 1024).toFixed(1)} KB |`,
  );
}
// The line through the points (least squares): RSS against live instances.
{
  const xs = rows.map((row) => row.target);
  const ys = rows.map((row) => row.after.rss);
  const mx = xs.reduce((a, b) => a + b) / xs.length;
  const my = ys.reduce((a, b) => a + b) / ys.length;
  const slope =
    xs.reduce((sum, x, i) => sum + (x - mx) * (ys[i] - my), 0) /
    xs.reduce((sum, x) => sum + (x - mx) ** 2, 0);
  console.log(`
line: RSS = ${mb(my - slope * mx)} + ${(slope / 1024).toFixed(1)} KB per live instance`);
}

// 2. Cold vs live first request.
const percentile = (values, p) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))];
const cold = [];
const live = [];
for (let i = 0; i < COLD; i++) {
  const name = `tcold${i}`;
  let start = performance.now();
  await metadata(name);
  cold.push(performance.now() - start);
  start = performance.now();
  await metadata(name);
  live.push(performance.now() - start);
}
console.log(`\n### many instances: first request of a cold instance (${COLD} instances)\n`);
console.log('| request | median | p95 |');
console.log('|---|---:|---:|');
console.log(
  `| cold (resolve, options, key import, answer) | ${percentile(cold, 0.5).toFixed(2)} ms | ${percentile(cold, 0.95).toFixed(2)} ms |`,
);
console.log(
  `| live (same request again) | ${percentile(live, 0.5).toFixed(3)} ms | ${percentile(live, 0.95).toFixed(3)} ms |`,
);

// 3. W1's Gatehouse part: host vs single instance.
const single = core.createGatehouse({
  issuer: `${ORIGIN}/t0`,
  ...instanceOptions('t0'),
  storage: core.memoryEngine(),
});
await single.ready();
async function tokenOf(servable, name) {
  const response = await servable.fetch(
    new Request(`${ORIGIN}/${name}/auth/v1/token`, {
      method: 'POST',
      headers: { Authorization: `Basic ${btoa('demo:demo-password')}` },
    }),
  );
  return (await response.json()).access_token;
}
const targets = {
  single: { auth: single, token: await tokenOf(single, 't0') },
  host: { auth: host, token: await tokenOf(host, 't1') },
};
const OPTIONS = { schemes: ['bearer'] };
const url = (name) => `${ORIGIN}/${name === 'single' ? 't0' : 't1'}/api/v1/tickets`;
async function round(name, iterations) {
  const { auth, token } = targets[name];
  const headers = { Authorization: `Bearer ${token}` };
  const start = performance.now();
  for (let i = 0; i < iterations; i++) {
    const request = new Request(url(name), { headers });
    const ok = await withAuthentication(auth, request, OPTIONS, (result) => result.ok);
    if (!ok) throw new Error(`${name}: refused`);
  }
  return iterations / ((performance.now() - start) / 1000);
}
await round('single', 20_000);
await round('host', 20_000);
const rates = { single: [], host: [] };
for (let r = 0; r < 6; r++) {
  for (const name of r % 2 ? ['host', 'single'] : ['single', 'host'])
    rates[name].push(await round(name, 50_000));
}
const median = (values) => percentile(values, 0.5);
console.log('\n### many instances: W1 bearer check (Gatehouse part, in process, 6 interleaved rounds)\n');
console.log('| through | checks/s (median) | rounds |');
console.log('|---|---:|---|');
for (const name of ['single', 'host']) {
  console.log(
    `| ${name} | ${Math.round(median(rates[name])).toLocaleString('en')} | ${rates[name].map((v) => Math.round(v)).join(', ')} |`,
  );
}
console.log(`\nhost / single: ${(median(rates.host) / median(rates.single)).toFixed(3)}`);
