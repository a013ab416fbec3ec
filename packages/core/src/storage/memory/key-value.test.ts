import { describe, expect, it } from 'vitest';
import { memoryKeyValueStore, StoreFullError } from '../../engine/index.js';

describe('memoryKeyValueStore', () => {
  const now = Date.now();

  it('answers a value until it expires', async () => {
    const kv = memoryKeyValueStore();
    await kv.set('a', 'one', now + 60_000);
    expect(await kv.get('a', now)).toBe('one');
    expect(await kv.get('a', now + 60_000)).toBeNull();
  });

  it('adds a key once: a second add of a live key loses', async () => {
    const kv = memoryKeyValueStore();
    const results = await Promise.all([1, 2, 3].map((n) => kv.add('k', String(n), now + 1000, now)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await kv.add('k', 'x', now + 5000, now + 1000)).toBe(true);
  });

  it('takes a value once', async () => {
    const kv = memoryKeyValueStore();
    await kv.set('k', 'v', now + 1000);
    const taken = await Promise.all([kv.take('k', now), kv.take('k', now)]);
    expect(taken.sort()).toEqual([null, 'v'].sort());
    expect(await kv.get('k', now)).toBeNull();
  });

  it('swaps only from the expected value', async () => {
    const kv = memoryKeyValueStore();
    await kv.set('k', 'pending', now + 1000);
    expect(await kv.swap('k', 'other', 'approved', now + 1000, now)).toBe(false);
    expect(await kv.swap('k', 'pending', 'approved', now + 2000, now)).toBe(true);
    expect(await kv.swap('k', 'pending', 'denied', now + 2000, now)).toBe(false);
    expect(await kv.get('k', now + 1500)).toBe('approved');
  });

  it('refuses new keys when full, and keeps replacing existing ones', async () => {
    const kv = memoryKeyValueStore({ maxEntries: 2 });
    await kv.set('a', '1', now + 60_000);
    await kv.set('b', '2', now + 60_000);
    await expect(kv.set('c', '3', now + 60_000)).rejects.toBeInstanceOf(StoreFullError);
    await kv.set('a', '9', now + 60_000);
    expect(await kv.get('a', now)).toBe('9');
  });

  it('bounds each namespace apart: a full one leaves the others writable', async () => {
    const kv = memoryKeyValueStore({ maxEntries: 1 });
    await kv.set('rate:a', '1', now + 60_000);
    await expect(kv.increment('rate:b', 1, now + 60_000, now)).rejects.toBeInstanceOf(StoreFullError);
    await kv.set('session:a', '{}', now + 60_000);
    expect(await kv.get('session:a', now)).toBe('{}');
  });
});
