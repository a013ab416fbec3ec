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

describe('memoryKeyValueStore when a namespace is full (fair shares)', () => {
  const now = Date.UTC(2026, 0, 1);
  const later = now + 60_000;
  const as = (partition: string) => ({ partition });

  it('makes room for a lighter partition from the heaviest one, oldest first, and refuses the heaviest itself', async () => {
    const kv = memoryKeyValueStore({ maxEntries: 4 });
    for (const key of ['x:1', 'x:2', 'x:3'])
      expect(await kv.add(key, 'flood', later, now, as('net:a'))).toBe(true);
    expect(await kv.add('x:4', 'user', later, now, as('net:b'))).toBe(true);
    // Full: the flooder (holding the most) is refused...
    await expect(kv.add('x:5', 'flood', later, now, as('net:a'))).rejects.toBeInstanceOf(StoreFullError);
    // ...a new party evicts the flooder's oldest entry.
    expect(await kv.add('x:6', 'other', later, now, as('net:c'))).toBe(true);
    expect(await kv.get('x:1', now)).toBeNull();
    expect(await kv.get('x:2', now)).toBe('flood');
    expect(await kv.get('x:4', now)).toBe('user');
    expect(await kv.get('x:6', now)).toBe('other');
  });

  it('closes the evicted partition until the evicted entry would have expired, so nothing evicted is forgotten by it', async () => {
    const kv = memoryKeyValueStore({ maxEntries: 2 });
    await kv.add('once:a', '1', now + 10_000, now, as('p'));
    await kv.add('once:b', '1', now + 20_000, now, as('p'));
    expect(await kv.add('once:c', '1', later, now, as('q'))).toBe(true); // evicts once:a, closes p until +10 s
    expect(await kv.get('once:a', now)).toBeNull();
    // p may not add a key, not even the evicted one again (a replay), until then.
    await expect(kv.add('once:a', '1', now + 10_000, now + 1, as('p'))).rejects.toBeInstanceOf(
      StoreFullError,
    );
    await expect(kv.increment('once-x', 1, later, now + 1, as('p'))).resolves.toBe(1); // another namespace
    await kv.delete('once:c');
    await expect(kv.add('once:d', '1', later, now + 9_999, as('p'))).rejects.toBeInstanceOf(StoreFullError);
    expect(await kv.add('once:d', '1', later, now + 10_000, as('p'))).toBe(true);
  });

  it('never evicts entries written without a partition (finished interactions, sessions)', async () => {
    const kv = memoryKeyValueStore({ maxEntries: 2 });
    await kv.add('interaction:a', 'pending', later, now, as('net:a'));
    await kv.set('interaction:b', 'unpartitioned', later);
    // Finishing rewrites the pending entry without a partition: it is no longer evictable.
    expect(await kv.swap('interaction:a', 'pending', 'finished', later, now)).toBe(true);
    await expect(kv.add('interaction:c', 'new', later, now, as('net:c'))).rejects.toBeInstanceOf(
      StoreFullError,
    );
    expect(await kv.get('interaction:a', now)).toBe('finished');
  });

  it('counts a partition down as its entries expire or are taken', async () => {
    const kv = memoryKeyValueStore({ maxEntries: 3 });
    await kv.add('x:1', 'a', now + 1_000, now, as('net:a'));
    await kv.add('x:2', 'a', later, now, as('net:a'));
    await kv.add('x:3', 'b', later, now, as('net:b'));
    expect(await kv.take('x:2', now)).toBe('a');
    await kv.add('x:4', 'unpartitioned', later, now + 1_000);
    await kv.add('x:5', 'unpartitioned', later, now + 1_000);
    // x:1 has expired and x:2 was taken: net:a holds nothing, so it gets room from net:b.
    expect(await kv.add('x:6', 'a', later, now + 1_000, as('net:a'))).toBe(true);
    expect(await kv.get('x:3', now + 1_000)).toBeNull();
  });

  it('gives an unpartitioned writer room from the heaviest partition', async () => {
    const kv = memoryKeyValueStore({ maxEntries: 2 });
    await kv.add('session:1', 'flood', later, now, as('net:a'));
    await kv.add('session:2', 'flood', later, now, as('net:a'));
    expect(await kv.add('session:3', 'signed-in', later, now)).toBe(true);
    expect(await kv.get('session:1', now)).toBeNull();
  });
});
