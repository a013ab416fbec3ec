import type { CaseContext, KitStorage } from './conformance-api.js';
import { baseTime, freshId } from './records.js';

/** A fresh key, prefixed as the flows prefix theirs. */
const freshKey = (label = 'kv') => `${label}:${freshId('key')}`;

/**
 * The key-value store (`GatehouseStorage.kv`) that the short-lived flows (pushed requests, device
 * codes, interactions) are built on: round trips of any string, expiry at the caller's `now`,
 * set-if-absent, single-use `take` and compare-and-set `swap`, each with exactly one winner among
 * concurrent callers, and `increment` (fixed-window counters, each concurrent caller its own count).
 * Sessions, consents, rate limits and replay ids are built on it too (their cases run through it).
 */
export function keyValueCases({ api, storage, concurrency }: CaseContext): void {
  const { describe, it, expect } = api;

  describe('key-value store', () => {
    it('gets a set value until its expiresAt, replaces it on set, and forgets it on delete', async () => {
      const { kv } = await storage();
      const now = baseTime();
      const key = freshKey();
      expect(await kv.get(key, now)).toBeNull();
      await kv.set(key, '{"a":1}', now + 60_000);
      expect(await kv.get(key, now)).toBe('{"a":1}');
      expect(await kv.get(key, now + 59_999)).toBe('{"a":1}');
      expect(await kv.get(key, now + 60_000)).toBeNull();
      await kv.set(key, 'second', now + 120_000);
      expect(await kv.get(key, now + 60_000)).toBe('second');
      await kv.delete(key);
      await kv.delete(key);
      expect(await kv.get(key, now)).toBeNull();
      await kv.delete(freshKey());
    });

    it('keeps any string intact: Unicode, JSON, empty, long, `%` and U+0000, and keys that extend others', async () => {
      const { kv } = await storage();
      const now = baseTime();
      const base = freshKey();
      const values: [string, string][] = [
        [base, JSON.stringify({ redirect_uri: 'https://app.example/cb?x=%20', name: 'Zoë ✓ 🔑' })],
        [`${base}:1`, ''],
        [`${base}:%00`, 'a%00b\u0000c%25'],
        [`${base}:\u0000`, '\u0000'],
        [`${base}:{x}`, 'braces'],
        [`${base}:${'é'.repeat(400)}`, 'x'.repeat(64 * 1024)],
      ];
      for (const [key, value] of values) await kv.set(key, value, now + 60_000);
      for (const [key, value] of values) expect(await kv.get(key, now)).toBe(value);
      expect(await kv.get(`${base}:`, now)).toBeNull();
      expect(await kv.take(`${base}:%00`, now)).toBe('a%00b\u0000c%25');
      expect(await kv.get(`${base}:\u0000`, now)).toBe('\u0000');
      expect(await kv.swap(`${base}:\u0000`, '\u0000', '%', now + 60_000, now)).toBe(true);
      expect(await kv.get(`${base}:\u0000`, now)).toBe('%');
    });

    it('adds a key only when it is absent or expired at now', async () => {
      const { kv } = await storage();
      const now = baseTime();
      const key = freshKey();
      expect(await kv.add(key, 'first', now + 60_000, now)).toBe(true);
      expect(await kv.add(key, 'second', now + 120_000, now + 1)).toBe(false);
      expect(await kv.get(key, now + 1)).toBe('first');
      // Expired at the caller's now: the key is free again, and the new value has its own expiry.
      expect(await kv.add(key, 'third', now + 120_000, now + 60_000)).toBe(true);
      expect(await kv.get(key, now + 60_000)).toBe('third');
      expect(await kv.get(key, now + 120_000)).toBeNull();
      // A value already expired when added is never seen.
      const gone = freshKey();
      expect(await kv.add(gone, 'x', now, now)).toBe(true);
      expect(await kv.get(gone, now)).toBeNull();
      expect(await kv.add(gone, 'y', now + 60_000, now)).toBe(true);
      expect(await kv.get(gone, now)).toBe('y');
    });

    it('takes a live value once, and nothing absent or expired', async () => {
      const { kv } = await storage();
      const now = baseTime();
      const key = freshKey();
      await kv.set(key, 'once', now + 60_000);
      expect(await kv.take(key, now)).toBe('once');
      expect(await kv.take(key, now)).toBeNull();
      expect(await kv.get(key, now)).toBeNull();
      expect(await kv.take(freshKey(), now)).toBeNull();
      const expiring = freshKey();
      await kv.set(expiring, 'late', now + 1000);
      expect(await kv.take(expiring, now + 1000)).toBeNull();
      // The expired key is free again.
      expect(await kv.add(expiring, 'new', now + 60_000, now + 1000)).toBe(true);
      expect(await kv.take(expiring, now + 1000)).toBe('new');
    });

    it('swaps only a live value equal to the expected one, and moves its expiry', async () => {
      const { kv } = await storage();
      const now = baseTime();
      const key = freshKey();
      expect(await kv.swap(key, 'pending', 'approved', now + 60_000, now)).toBe(false);
      expect(await kv.get(key, now)).toBeNull();
      await kv.set(key, 'pending', now + 10_000);
      expect(await kv.swap(key, 'Pending', 'approved', now + 60_000, now)).toBe(false);
      expect(await kv.swap(key, 'pending ', 'approved', now + 60_000, now)).toBe(false);
      expect(await kv.swap(key, 'pending', 'approved', now + 60_000, now)).toBe(true);
      expect(await kv.swap(key, 'pending', 'denied', now + 60_000, now)).toBe(false);
      expect(await kv.get(key, now + 30_000)).toBe('approved');
      expect(await kv.get(key, now + 60_000)).toBeNull();

      const expired = freshKey();
      await kv.set(expired, 'pending', now + 1000);
      expect(await kv.swap(expired, 'pending', 'approved', now + 60_000, now + 1000)).toBe(false);
      expect(await kv.get(expired, now + 1000)).toBeNull();
    });

    it('accepts fractional times, rounding expiries up and instants down', async () => {
      const { kv } = await storage();
      const now = baseTime() + 0.5;
      const key = freshKey();
      await kv.set(key, 'v', now + 60_000.25);
      expect(await kv.get(key, now)).toBe('v');
      expect(await kv.get(key, now + 60_000)).toBe('v');
      expect(await kv.add(key, 'w', now + 1000.5, now + 0.25)).toBe(false);
      expect(await kv.swap(key, 'v', 'w', now + 30_000.5, now + 0.25)).toBe(true);
      expect(await kv.take(key, now + 0.75)).toBe('w');
    });

    it(`${concurrency} parallel adds of one key: exactly one added, and its value is stored`, async () => {
      const { kv } = await storage();
      const now = baseTime();
      const key = freshKey();
      const results = await Promise.all(
        Array.from({ length: concurrency }, (_, i) => kv.add(key, `caller-${i}`, now + 60_000, now)),
      );
      expect(results.filter(Boolean).length).toBe(1);
      expect(await kv.get(key, now)).toBe(`caller-${results.indexOf(true)}`);
    });

    it(`${concurrency} parallel takes of one key: exactly one gets the value`, async () => {
      const { kv } = await storage();
      const now = baseTime();
      const key = freshKey();
      await kv.set(key, 'single-use', now + 60_000);
      const taken = await Promise.all(Array.from({ length: concurrency }, () => kv.take(key, now)));
      expect(taken.filter((value) => value !== null)).toEqual(['single-use']);
      expect(await kv.get(key, now)).toBeNull();
    });

    it(`${concurrency} parallel swaps from one value: exactly one wins, and only its write lands`, async () => {
      const { kv } = await storage();
      const now = baseTime();
      const key = freshKey();
      await kv.set(key, 'pending', now + 60_000);
      const results = await Promise.all(
        Array.from({ length: concurrency }, (_, i) =>
          kv.swap(key, 'pending', `decided-${i}`, now + 60_000, now),
        ),
      );
      expect(results.filter(Boolean).length).toBe(1);
      expect(await kv.get(key, now)).toBe(`decided-${results.indexOf(true)}`);
    });

    it('increments a counter from 0, keeps the expiry of its first increment, and starts again once it expired', async () => {
      const { kv } = await storage();
      const now = baseTime();
      const key = freshKey('count');
      expect(await kv.increment(key, 1, now + 60_000, now)).toBe(1);
      expect(await kv.increment(key, 2, now + 600_000, now + 1)).toBe(3);
      expect(await kv.get(key, now + 1)).toBe('3');
      // The window is the first increment's: the later expiresAt did not extend it.
      expect(await kv.get(key, now + 60_000)).toBeNull();
      expect(await kv.increment(key, 1, now + 120_000, now + 60_000)).toBe(1);
      expect(await kv.get(key, now + 119_999)).toBe('1');
      await kv.delete(key);
      expect(await kv.get(key, now + 60_000)).toBeNull();
      expect(await kv.increment(key, 5, now + 60_000, now)).toBe(5);
    });

    it('gives each of concurrent increments its own count: none is lost', async () => {
      const { kv } = await storage();
      const now = baseTime();
      const key = freshKey('count');
      const counts = await Promise.all(
        Array.from({ length: concurrency }, () => kv.increment(key, 1, now + 60_000, now)),
      );
      expect([...counts].sort((a, b) => a - b)).toEqual(Array.from({ length: concurrency }, (_, i) => i + 1));
      expect(await kv.get(key, now)).toBe(String(concurrency));
    });

    it('a take racing a swap on one key: the value is taken once, never swapped after it was taken', async () => {
      const { kv } = await storage();
      const now = baseTime();
      const keys = Array.from({ length: Math.min(concurrency, 50) }, () => freshKey('race'));
      for (const key of keys) await kv.set(key, 'pending', now + 60_000);
      const outcomes = await Promise.all(
        keys.map((key) =>
          Promise.all([kv.take(key, now), kv.swap(key, 'pending', 'approved', now + 60_000, now)]),
        ),
      );
      for (const [taken, swapped] of outcomes) {
        // Swap first: the take gets the swapped value. Take first: the swap finds nothing.
        expect(taken).toBe(swapped ? 'approved' : 'pending');
      }
      for (const key of keys) expect(await kv.get(key, now)).toBeNull();
    });

    it('an index moved by compare-and-set rounds: concurrent appends each land once, none lost', async () => {
      // What a user's pending backchannel requests are (`oauth2/ciba/records.ts`): read, append,
      // swap, and read again when another writer won the round.
      const { kv } = await storage();
      const now = baseTime();
      const key = freshKey('index');
      const writers = Math.min(concurrency, 12);
      const append = async (entry: string) => {
        for (let round = 0; round < 10 * writers; round++) {
          const text = await kv.get(key, now);
          const next = JSON.stringify([...(text === null ? [] : (JSON.parse(text) as string[])), entry]);
          const moved =
            text === null
              ? await kv.add(key, next, now + 60_000, now)
              : await kv.swap(key, text, next, now + 60_000, now);
          if (moved) return;
        }
        throw new Error(`${entry} never landed`);
      };
      await Promise.all(Array.from({ length: writers }, (_, i) => append(`request-${i}`)));
      const index = JSON.parse((await kv.get(key, now)) ?? '[]') as string[];
      expect([...index].sort()).toEqual(Array.from({ length: writers }, (_, i) => `request-${i}`).sort());
    });

    it('a backchannel request: added, decided once of racing decisions, redeemed once of racing polls', async () => {
      const { kv } = await storage();
      const now = baseTime();
      const key = freshKey('ciba:req');
      const pending = JSON.stringify({ status: 'pending', scope: 'openid' });
      expect(await kv.add(key, pending, now + 60_000, now, { partition: 'client:abc' })).toBe(true);
      expect(await kv.add(key, pending, now + 60_000, now)).toBe(false);
      const decisions = await Promise.all(
        Array.from({ length: Math.min(concurrency, 20) }, (_, i) =>
          kv.swap(
            key,
            pending,
            JSON.stringify({ status: i % 2 ? 'denied' : 'approved', by: i }),
            now + 60_000,
            now,
          ),
        ),
      );
      expect(decisions.filter(Boolean).length).toBe(1);
      const decided = await kv.get(key, now);
      expect(JSON.parse(decided!).by).toBe(decisions.indexOf(true));
      const polls = await Promise.all(
        Array.from({ length: Math.min(concurrency, 20) }, () => kv.take(key, now)),
      );
      expect(polls.filter((value) => value !== null)).toEqual([decided]);
    });
  });
}

/**
 * Key-value entries of two instances of one engine, under the same keys, are apart, and `clear()`
 * deletes one instance's entries only.
 */
export function keyValueIsolationCases({ api, engine }: CaseContext): void {
  const { describe, it, expect } = api;

  const twoInstances = async (): Promise<[KitStorage, KitStorage]> => {
    const shared = await engine();
    const id = freshId('isolation-kv');
    return [shared.instance(id), shared.instance(`${id}:1`)];
  };

  describe('isolation of key-value entries', () => {
    it('keeps entries of one key apart: another instance can neither see, add over, take nor swap one', async () => {
      const [a, b] = await twoInstances();
      const now = baseTime();
      const key = freshKey();
      await a.kv.set(key, 'of-a', now + 60_000);
      expect(await b.kv.get(key, now)).toBeNull();
      expect(await b.kv.take(key, now)).toBeNull();
      expect(await b.kv.swap(key, 'of-a', 'stolen', now + 60_000, now)).toBe(false);
      expect(await b.kv.add(key, 'of-b', now + 60_000, now)).toBe(true);
      await b.kv.delete(key);
      expect(await a.kv.get(key, now)).toBe('of-a');
    });

    it('keeps counters of one key apart', async () => {
      const [a, b] = await twoInstances();
      const now = baseTime();
      const key = freshKey('count');
      expect(await a.kv.increment(key, 3, now + 60_000, now)).toBe(3);
      expect(await b.kv.increment(key, 1, now + 60_000, now)).toBe(1);
      expect(await a.kv.increment(key, 1, now + 60_000, now)).toBe(4);
    });

    it('clear() deletes the entries of one instance and nothing of the other', async () => {
      const [a, b] = await twoInstances();
      const now = baseTime();
      const key = freshKey();
      await a.kv.set(key, 'a', now + 60_000);
      await b.kv.set(key, 'b', now + 60_000);
      await a.clear();
      expect(await a.kv.get(key, now)).toBeNull();
      expect(await a.kv.add(key, 'again', now + 60_000, now)).toBe(true);
      expect(await b.kv.get(key, now)).toBe('b');
    });
  });
}
