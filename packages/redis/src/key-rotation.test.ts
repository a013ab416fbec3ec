import { type RedisEngine, redisEngine } from '@gatehousejs/redis';
import { describe, expect, it } from 'vitest';
import { rotateUnderLoad } from '../../core/test/key-rotation-under-load.js';
import { dropPrefix } from '../test/drop-prefix.js';

// Stored key rotation (`keyRotation`) on real Redis: two processes, each with its own connection.
const url = process.env.REDIS_URL;
if (!url)
  console.warn('@gatehousejs/redis: REDIS_URL is not set; skipping the key rotation under load test.');

describe.skipIf(!url)('stored key rotation on Redis', () => {
  it('rotates under load on two processes with zero verification failures', async () => {
    const prefix = `gatehouse-test-${crypto.randomUUID()}`;
    const engines: RedisEngine[] = [redisEngine({ url: url!, prefix }), redisEngine({ url: url!, prefix })];
    try {
      await Promise.all(engines.map((engine) => engine.ready()));
      const run = await rotateUnderLoad([engines[0]!, engines[1]!], 4);
      expect(run.failures).toEqual([]);
      expect(run.signingKids.length).toBeGreaterThanOrEqual(5);
      expect(run.verified).toBeGreaterThan(run.issued);
      console.info(
        `redis: ${run.issued} issued, ${run.verified} verified, ${run.signingKids.length - 1} rotations, 0 failures`,
      );
    } finally {
      await dropPrefix(engines[0]!, prefix);
      for (const engine of engines) await engine.close();
    }
  }, 90_000);
});
