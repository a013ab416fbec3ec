import { memoryKeyValueStore } from '@gatehousejs/core/engine';
import { describe, expect, it } from 'vitest';
import { ISSUER, testInstance, userBasic } from '../../../test/fixtures';
import { kvRateLimitStore } from './rate-limits.js';

/** A rate-limit store on a memory key-value store holding at most `maxEntries` windows. */
const boundedStore = (maxEntries: number) => kvRateLimitStore(memoryKeyValueStore({ maxEntries }));

const NOW = Date.UTC(2026, 0, 1);

describe('rate limits on a bounded key-value store', () => {
  it('keeps at most maxEntries windows: a new key beyond them gets a window over any limit, stored nowhere', async () => {
    const store = boundedStore(3);
    for (const key of ['a', 'b', 'c']) expect((await store.increment(key, 10_000, NOW)).count).toBe(1);
    const refused = await store.increment('d', 10_000, NOW);
    expect(refused.count).toBe(Number.MAX_SAFE_INTEGER);
    expect(refused.resetAt).toBe(NOW + 10_000);
    expect(await store.get('d', NOW)).toBeNull();
    // Existing windows are neither evicted nor frozen.
    expect(await store.increment('a', 10_000, NOW + 1)).toEqual({ count: 2, resetAt: NOW + 10_000 });
    expect(await store.get('c', NOW)).toEqual({ count: 1, resetAt: NOW + 10_000 });
  });

  it('makes room as windows end, and when a key is reset', async () => {
    const store = boundedStore(2);
    await store.increment('short', 1_000, NOW);
    await store.increment('long', 60_000, NOW);
    expect((await store.increment('x', 60_000, NOW)).count).toBe(Number.MAX_SAFE_INTEGER);
    expect((await store.increment('x', 60_000, NOW + 1_000)).count).toBe(1);
    await store.reset('long');
    expect((await store.increment('y', 60_000, NOW + 1_000)).count).toBe(1);
  });

  it('rejects a bound that is not a positive whole number', () => {
    expect(() => memoryKeyValueStore({ maxEntries: 0 })).toThrow(RangeError);
    expect(() => memoryKeyValueStore({ maxEntries: 1.5 })).toThrow(RangeError);
  });

  it('once full, makes room from the flooding network: others still sign in, and no counter is forgotten', async () => {
    const t = await testInstance({
      rateLimit: {
        clientAddress: (request) => request.headers.get('x-test-address') ?? undefined,
        maxFailuresPerAddress: 2,
      },
      storage: { kv: memoryKeyValueStore({ maxEntries: 40 }) },
    });
    const attempt = (address: string, password = 'wrong') =>
      t.gatehouse.fetch(
        new Request(`${ISSUER}/auth/v1/token`, {
          method: 'POST',
          headers: { Authorization: userBasic('demo', password), 'x-test-address': address },
        }),
      );
    // The attacker's own address is blocked...
    for (let i = 0; i < 2; i++) expect((await attempt('203.0.113.1')).status).toBe(401);
    expect((await attempt('203.0.113.1', 'demo-password')).status).toBe(429);
    // ...a flood from one /24 fills the store, then only that /24 is refused (it holds the most)...
    let filledAfter = 0;
    for (let i = 0; i < 100 && filledAfter === 0; i++) {
      if ((await attempt(`198.51.100.${i}`)).status === 429) filledAfter = i;
    }
    expect(filledAfter).toBeGreaterThan(5);
    // ...the blocked address stays blocked (its counters were not the ones evicted)...
    expect((await attempt('203.0.113.1', 'demo-password')).status).toBe(429);
    // ...and a user of another network signs in.
    expect((await attempt('192.0.2.77', 'demo-password')).status).toBe(200);
  });

  it('never resets an evicted counter: the network it was taken from is refused until it would have ended', async () => {
    const kv = memoryKeyValueStore({ maxEntries: 2 });
    const store = kvRateLimitStore(kv);
    const flood = { partition: 'net:flood' };
    // `rate:` and `rate-end:` are namespaces of their own: two windows fill both.
    expect((await store.increment('a', 60_000, NOW, flood)).count).toBe(1);
    expect((await store.increment('b', 60_000, NOW, flood)).count).toBe(1);
    // Another network's window evicts the flood's oldest, and the flood's network is closed.
    expect((await store.increment('c', 60_000, NOW, { partition: 'net:other' })).count).toBe(1);
    expect(await store.get('a', NOW)).toBeNull();
    expect((await store.increment('a', 60_000, NOW + 1, flood)).count).toBe(Number.MAX_SAFE_INTEGER);
    expect((await store.increment('b', 60_000, NOW + 1, flood)).count).toBe(2); // a live window counts on
    expect((await store.increment('a', 60_000, NOW + 60_000, flood)).count).toBe(1); // after it would have ended
  });
});
