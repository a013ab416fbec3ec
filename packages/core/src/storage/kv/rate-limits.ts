import { isStoreFull } from '../store-full.js';
import type { KeyValueStore, RateLimitWindow } from '../types.js';
import { rateCountKey, rateEndKey } from './keys.js';
import type { RateLimitStore } from './state-stores.js';

/** What a window is counted when the key-value store has no room for it: over any limit. */
export const SATURATED = Number.MAX_SAFE_INTEGER;

/**
 * {@link RateLimitStore} on the key-value store: a fixed window is a counter (`increment`, atomic)
 * and its end (`add`, first writer wins), both expiring when the window ends. The two are written
 * together (one round trip); the end is read back only when this call did not start the window.
 * The window starts at the first increment, as the password limiter's policy says.
 *
 * A counter whose end is missing (a `reset` racing an increment) is answered as a window ending
 * one second from now: the count stays honest, only its `Retry-After` is short.
 */
export function kvRateLimitStore(kv: KeyValueStore): RateLimitStore {
  const windowEnd = async (key: string, now: number): Promise<number> => {
    const end = Number(await kv.get(rateEndKey(key), now));
    return Number.isFinite(end) && end > now ? end : now + 1000;
  };
  return {
    async get(key, now) {
      const [count, end] = await Promise.all([kv.get(rateCountKey(key), now), kv.get(rateEndKey(key), now)]);
      if (count === null) return null;
      const resetAt = Number(end);
      return {
        count: Number(count),
        resetAt: Number.isFinite(resetAt) && resetAt > now ? resetAt : now + 1000,
      };
    },
    async increment(key, windowMs, now): Promise<RateLimitWindow> {
      const resetAt = now + windowMs;
      try {
        const [started, count] = await Promise.all([
          kv.add(rateEndKey(key), String(resetAt), resetAt, now),
          kv.increment(rateCountKey(key), 1, resetAt, now),
        ]);
        return { count, resetAt: started ? resetAt : await windowEnd(key, now) };
      } catch (error) {
        // No room for a new window: refuse the attempt rather than drop anyone's live counter.
        if (isStoreFull(error)) return { count: SATURATED, resetAt };
        throw error;
      }
    },
    async reset(key) {
      await Promise.all([kv.delete(rateCountKey(key)), kv.delete(rateEndKey(key))]);
    },
  };
}
