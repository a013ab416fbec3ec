/**
 * Memory of the in-memory engines: 100,000 live refresh tokens and 100,000 live sessions, stored
 * the way Gatehouse stores them (SHA-256 hashes as keys, full records), through the public API of
 * the built package. Reports RSS and V8 heap before and after, with garbage collected.
 * Run: `node --expose-gc bench/memory.mjs [count]` (`pnpm bench` runs it; needs a build).
 */
const { hashSecret, kvSessionStore, memoryGrantStore, memoryKeyValueStore } = await import(
  '../packages/core/dist/engine.js'
);

const COUNT = Number(process.argv[2] ?? 100_000);
const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
const settle = () => {
  globalThis.gc?.();
  globalThis.gc?.();
  return process.memoryUsage();
};
const random = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');

const grants = memoryGrantStore();
// Sessions as Gatehouse keeps them: on the key-value store (unbounded here, for the measurement).
const sessions = kvSessionStore(memoryKeyValueStore({ maxEntries: 10_000_000 }));
const before = settle();
const now = Date.now();
// Readings along the way (refresh tokens first, then sessions, each in two halves): the slope of
// RSS against records of each kind.
const readings = [{ tokens: 0, sessions: 0, rss: before.rss }];
const half = Math.floor(COUNT / 2);
for (let i = 0; i < COUNT; i++) {
  if (i === half) readings.push({ tokens: i, sessions: 0, rss: settle().rss });
  await grants.saveRefreshToken({
    tokenHash: await hashSecret(random()),
    grantId: crypto.randomUUID(),
    clientId: 'demo-client',
    subject: { kind: 'user', userId: `user-${i % 5000}` },
    scope: 'openid profile tickets:read offline_access',
    issuedAt: now,
    expiresAt: now + 30 * 86_400_000,
  });
}
readings.push({ tokens: COUNT, sessions: 0, rss: settle().rss });
for (let i = 0; i < COUNT; i++) {
  if (i === half) readings.push({ tokens: COUNT, sessions: i, rss: settle().rss });
  await sessions.createSession({
    idHash: await hashSecret(random()),
    userId: `user-${i % 5000}`,
    createdAt: now,
    lastSeenAt: now,
    expiresAt: now + 43_200_000,
  });
}
const after = settle();
readings.push({ tokens: COUNT, sessions: COUNT, rss: after.rss });
// Keep the stores alive until after the measurement.
if (!(await grants.findRefreshToken('x', now)) && !(await sessions.findSession('x', now))) {
  console.log(
    `\n### memory: ${COUNT.toLocaleString('en')} refresh tokens + ${COUNT.toLocaleString('en')} sessions (Node ${process.version})\n`,
  );
  console.log('| | RSS | V8 heap used |');
  console.log('|---|---:|---:|');
  console.log(`| empty stores | ${mb(before.rss)} | ${mb(before.heapUsed)} |`);
  console.log(`| filled | ${mb(after.rss)} | ${mb(after.heapUsed)} |`);
  console.log(`| per record (heap) | | ${((after.heapUsed - before.heapUsed) / (2 * COUNT)) | 0} bytes |`);
  // Least-squares slope of RSS over the readings where only `kind` grows.
  const slope = (kind, other) => {
    const points = readings.filter((r) => r[other] === (kind === 'tokens' ? 0 : COUNT));
    const xs = points.map((p) => p[kind]);
    const ys = points.map((p) => p.rss);
    const mx = xs.reduce((a, b) => a + b) / xs.length;
    const my = ys.reduce((a, b) => a + b) / ys.length;
    return xs.reduce((s, x, i) => s + (x - mx) * (ys[i] - my), 0) / xs.reduce((s, x) => s + (x - mx) ** 2, 0);
  };
  const perMillion = (bytesPerRecord) => `${((bytesPerRecord * 1e6) / 2 ** 20).toFixed(0)} MB per million`;
  console.log(
    `\nRSS readings: ${readings.map((r) => `${r.tokens}/${r.sessions}: ${mb(r.rss)}`).join(', ')} (tokens/sessions)`,
  );
  console.log(
    `line: RSS = ${mb(before.rss)} + ${perMillion(slope('tokens', 'sessions'))} refresh tokens + ${perMillion(slope('sessions', 'tokens'))} sessions`,
  );
  console.log(
    `\ntarget: RSS < 200 MB → ${after.rss < 200 * 2 ** 20 ? 'met' : 'NOT met'}${globalThis.gc ? '' : ' (run with --expose-gc for settled figures)'}`,
  );
}
