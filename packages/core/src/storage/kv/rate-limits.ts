import { isStoreFull } from '../store-full.js';
import type { KeyValueStore, KeyValueWriteOptions, RateLimitWindow } from '../types.js';
import { rateCountKey, rateEndKey } from './keys.js';
import type { RateLimitStore } from './state-stores.js';

/** What a window is counted when the key-value store has no room for it: over any limit. */
export const SATURATED = Number.MAX_SAFE_INTEGER;

/**
 * {@link RateLimitStore} on the key-value store: a fixed window is a counter (`increment`, atomic)
 * and its end (`add`, first writer wins), both expiring when the window ends. An increment sends
 * the add, the increment and a read of the end together (one round trip of latency on every
 * engine). The window starts at the first increment, as the password limiter's policy says.
 *
 * A counter whose end is missing (a `reset` racing an increment) is answered by `get` as a window
 * ending one second from now: the count stays honest, only its `Retry-After` is short.
 */
export function kvRateLimitStore(kv: KeyValueStore): RateLimitStore {
  /** A stored window end, if it is one still ahead of `now`. */
  const endOf = (value: string | null, now: number): number | undefined => {
    const end = Number(value ?? Number.NaN);
    return Number.isFinite(end) && end > now ? end : undefined;
  };
  return {
    async get(key, now) {
      const [count, end] = await Promise.all([kv.get(rateCountKey(key), now), kv.get(rateEndKey(key), now)]);
      if (count === null) return null;
      return { count: Number(count), resetAt: endOf(end, now) ?? now + 1000 };
    },
    async increment(key, windowMs, now, options?: KeyValueWriteOptions): Promise<RateLimitWindow> {
      const resetAt = now + windowMs;
      try {
        // Sent together (one round trip of latency): start the window's end if there is none, count,
        // and read the end in case another call started the window.
        const [started, count, end] = await Promise.all([
          kv.add(rateEndKey(key), String(resetAt), resetAt, now, options),
          kv.increment(rateCountKey(key), 1, resetAt, now, options),
          kv.get(rateEndKey(key), now),
        ]);
        // A window another call started a moment ago, whose end this read missed, ends about now + windowMs.
        return { count, resetAt: started ? resetAt : (endOf(end, now) ?? resetAt) };
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
