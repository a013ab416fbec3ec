/**
 * Micro benchmarks (tinybench) of the in-memory storage engines, on the operations of the hot
 * paths: refresh rotation (find + rotate), code redemption, the per-request revocation check, and
 * session lookups. Each iteration works on fresh records, as real traffic does.
 * Run: `node --import tsx bench/micro/storage.bench.mjs` (from the repository root).
 */
import { Bench } from 'tinybench';
import {
  hashSecret,
  kvSessionStore,
  memoryGrantStore,
  memoryKeyValueStore,
} from '../../packages/core/src/engine/index.ts';
import { printTable } from './table.mjs';

const now = Date.now();
const grants = memoryGrantStore();
// Sessions as Gatehouse keeps them: on the key-value store (unbounded here, for the measurement).
const sessions = kvSessionStore(memoryKeyValueStore({ maxEntries: 10_000_000 }));
const PREFILL = 100_000;
const refresh = (tokenHash) => ({
  tokenHash,
  grantId: `grant-${tokenHash}`,
  clientId: 'demo-client',
  subject: { kind: 'user', userId: 'user-1' },
  scope: 'openid',
  issuedAt: now,
  expiresAt: now + 86_400_000,
});
// A realistic population: lookups hit a map that already holds many live records.
for (let i = 0; i < PREFILL; i++) {
  await grants.saveRefreshToken(refresh(await hashSecret(`prefill-${i}`)));
  await sessions.createSession({
    idHash: await hashSecret(`session-${i}`),
    userId: 'user-1',
    createdAt: now,
    lastSeenAt: now,
    expiresAt: now + 43_200_000,
  });
}
const hashes = [];
for (let i = 0; i < 400_000; i++) hashes.push(await hashSecret(`fresh-${i}`));
let n = 0;
let m = 0;

const bench = new Bench({ time: 1000, warmupTime: 200 });
bench
  .add('grants.saveRefreshToken', async () => {
    await grants.saveRefreshToken(refresh(hashes[n++ % hashes.length]));
  })
  .add('grants.findRefreshToken (hit)', async () => {
    await grants.findRefreshToken(hashes[m++ % Math.max(n, 1)], now);
  })
  .add('grants.rotateRefreshToken', async () => {
    const current = hashes[n++ % hashes.length];
    await grants.saveRefreshToken(refresh(current));
    await grants.rotateRefreshToken(current, refresh(hashes[n++ % hashes.length]), now);
  })
  .add('grants.saveCode + redeemCode', async () => {
    const codeHash = hashes[n++ % hashes.length];
    await grants.saveCode({
      codeHash,
      clientId: 'demo-client',
      userId: 'user-1',
      grantId: `g-${codeHash}`,
      redirectUri: 'http://127.0.0.1/cb',
      scope: 'openid',
      authTime: now,
      expiresAt: now + 60_000,
    });
    await grants.redeemCode(codeHash, refresh(hashes[n++ % hashes.length]), now, now + 3_600_000);
  })
  .add('grants.isRevoked (not revoked)', async () => {
    await grants.isRevoked('jti-not-revoked', 'grant-not-revoked', now);
  })
  .add('sessions.findSession (hit)', async () => {
    await sessions.findSession(hashes[0], now);
  })
  .add('hashSecret + findRefreshToken (the lookup of a presented token)', async () => {
    await grants.findRefreshToken(await hashSecret(`prefill-${m++ % PREFILL}`), now);
  });

await bench.run();
printTable('memory storage engine', bench);
