/**
 * W1's Gatehouse part (the bearer check of a known token, `withAuthentication` of
 * `@gatehousejs/core/adapter`, as `requireAuth` runs it) answered by the pushed-revocations mirror
 * holding 0, 10,000 and 100,000 revocations (half revoked access tokens, half revoked grants, none
 * of them the checked token's): one instance per size, each on its own memory engine with
 * `pushedRevocations: true`, rounds interleaved, medians; the heap each size's revocations take
 * (store and mirror together, garbage collected). Each instance's `isRevoked` is counted to show
 * that the mirror, not the store, answered the measured checks.
 *
 * Run: `node --expose-gc bench/mirror.mjs` (needs a build). `BENCH_ROUNDS` (6), `BENCH_CHECKS` (50,000).
 */
const core = await import('../packages/core/dist/index.js');
const { withAuthentication } = await import('../packages/core/dist/adapter.js');

const ORIGIN = 'http://localhost:3000';
const SIZES = [0, 10_000, 100_000];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const CHECKS = Number(process.env.BENCH_CHECKS ?? 50_000);
const settle = () => {
  globalThis.gc?.();
  globalThis.gc?.();
  return process.memoryUsage();
};
const hasher = core.pbkdf2Hasher({ iterations: 1000 });
const passwordHash = await hasher.hash('demo-password');
const key = await core.generateKeys('ES256');

async function instanceWith(size) {
  const storage = core.memoryStorage();
  let asked = 0;
  const grants = {
    ...storage.grants,
    isRevoked(...args) {
      asked++;
      return storage.grants.isRevoked(...args);
    },
  };
  const gatehouse = core.createGatehouse({
    issuer: `${ORIGIN}/m${size}`,
    keys: [key],
    clients: core.memoryClientStore([]),
    users: core.memoryUserStore([{ id: 'user-1', username: 'demo', passwordHash }], { hasher }),
    storage: { ...storage, grants },
    pushedRevocations: true,
    logger: { warn() {}, error() {} },
  });
  await gatehouse.ready();
  const response = await gatehouse.fetch(
    new Request(`${ORIGIN}/m${size}/auth/v1/token`, {
      method: 'POST',
      headers: { Authorization: `Basic ${btoa('demo:demo-password')}` },
    }),
  );
  const token = (await response.json()).access_token;
  return { size, gatehouse, token, grants, asked: () => asked };
}

const OPTIONS = { schemes: ['bearer'] };
async function round(target, iterations) {
  const headers = { Authorization: `Bearer ${target.token}` };
  const url = `${ORIGIN}/m${target.size}/api/v1/tickets`;
  const start = performance.now();
  for (let i = 0; i < iterations; i++) {
    const ok = await withAuthentication(
      target.gatehouse,
      new Request(url, { headers }),
      OPTIONS,
      (r) => r.ok,
    );
    if (!ok) throw new Error(`mirror of ${target.size}: refused`);
  }
  return iterations / ((performance.now() - start) / 1000);
}

const targets = [];
const heap = {};
for (const size of SIZES) {
  const before = settle();
  const target = await instanceWith(size);
  // Subscribe the mirror (first check), let it catch up, then revoke: each revocation reaches it
  // through the engine's channel as another process's would.
  await round(target, 100);
  await new Promise((resolve) => setTimeout(resolve, 50));
  const expiresAt = Date.now() + 3_600_000;
  for (let i = 0; i < size; i++) {
    if (i % 2) await target.grants.revokeAccessToken(crypto.randomUUID(), expiresAt);
    else await target.grants.revokeGrant(crypto.randomUUID(), expiresAt);
  }
  heap[size] = settle().heapUsed - before.heapUsed;
  targets.push(target);
}
for (const target of targets) await round(target, 20_000); // warm-up
const rates = Object.fromEntries(SIZES.map((size) => [size, []]));
const askedBefore = targets.map((t) => t.asked());
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 ? [...targets].reverse() : targets;
  for (const target of order) rates[target.size].push(await round(target, CHECKS));
}
const askedDuring = targets.map((t, i) => t.asked() - askedBefore[i]);

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(
  `\n### W1 bearer check answered by the revocation mirror (in process, ${ROUNDS} interleaved rounds)\n`,
);
console.log(
  '| revocations in the mirror | checks/s (median) | µs per check | heap for them | store asked | rounds |',
);
console.log('|---:|---:|---:|---:|---:|---|');
for (const [i, size] of SIZES.entries()) {
  const rate = median(rates[size]);
  console.log(
    `| ${size.toLocaleString('en')} | ${Math.round(rate).toLocaleString('en')} | ${(1e6 / rate).toFixed(2)} | ${(heap[size] / 2 ** 20).toFixed(1)} MB | ${askedDuring[i]} | ${rates[size].map((v) => Math.round(v)).join(', ')} |`,
  );
}
// Least-squares line through the points: µs per check against revocations held.
const xs = SIZES;
const ys = SIZES.map((size) => 1e6 / median(rates[size]));
const mx = xs.reduce((a, b) => a + b) / xs.length;
const my = ys.reduce((a, b) => a + b) / ys.length;
const slope =
  xs.reduce((s, x, i) => s + (x - mx) * (ys[i] - my), 0) / xs.reduce((s, x) => s + (x - mx) ** 2, 0);
const largest = SIZES.at(-1);
console.log(
  `\nline: µs per check = ${(my - slope * mx).toFixed(2)} ${slope < 0 ? '−' : '+'} ${Math.abs(slope * 100_000).toFixed(3)} per 100,000 revocations; heap ${((heap[largest] - heap[0]) / (largest - 0)).toFixed(0)} bytes per revocation (store + mirror)`,
);
