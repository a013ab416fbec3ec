/**
 * Memory of the in-memory engines: 100,000 live refresh tokens and 100,000 live sessions, stored
 * the way Gatehouse stores them (SHA-256 hashes as keys, full records), through the public API of
 * the built package. Reports RSS and V8 heap before and after, with garbage collected.
 * Run: `node --expose-gc bench/memory.mjs [count]` (`pnpm bench` runs it; needs a build).
 */
const { hashSecret, kvSessionStore, memoryGrantStore, memoryKeyValueStore } = await import(
  '../packages/core/dist/index.js'
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
for (let i = 0; i < COUNT; i++) {
  await grants.saveRefreshToken({
    tokenHash: await hashSecret(random()),
    grantId: crypto.randomUUID(),
    clientId: 'demo-client',
    subject: { kind: 'user', userId: `user-${i % 5000}` },
    scope: 'openid profile tickets:read offline_access',
    issuedAt: now,
    expiresAt: now + 30 * 86_400_000,
  });
  await sessions.createSession({
    idHash: await hashSecret(random()),
    userId: `user-${i % 5000}`,
    createdAt: now,
    lastSeenAt: now,
    expiresAt: now + 43_200_000,
  });
}
const after = settle();
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
  console.log(
    `\ntarget: RSS < 200 MB → ${after.rss < 200 * 2 ** 20 ? 'met' : 'NOT met'}${globalThis.gc ? '' : ' (run with --expose-gc for settled figures)'}`,
  );
}
