import { type KeyValueStore, memoryKeyValueStore } from '@gatehousejs/core/engine';

/**
 * A memory key-value store recording the rate-limit windows charged in it: `keys` holds each key
 * the rate limiter incremented (without the store's `rate:` prefix), for tests of what the limiters
 * write. Give `inner` to record over another store (an engine view's `kv`).
 */
export function recordingRateLimits(inner: KeyValueStore = memoryKeyValueStore()): {
  readonly kv: KeyValueStore;
  readonly keys: Set<string>;
} {
  const keys = new Set<string>();
  const kv: KeyValueStore = {
    get: (key, now) => inner.get(key, now),
    set: (key, value, expiresAt) => inner.set(key, value, expiresAt),
    add: (key, value, expiresAt, now) => inner.add(key, value, expiresAt, now),
    take: (key, now) => inner.take(key, now),
    swap: (key, expected, value, expiresAt, now) => inner.swap(key, expected, value, expiresAt, now),
    delete: (key) => inner.delete(key),
    increment(key, by, expiresAt, now) {
      if (key.startsWith('rate:')) keys.add(key.slice('rate:'.length));
      return inner.increment(key, by, expiresAt, now);
    },
  };
  return { kv, keys };
}
