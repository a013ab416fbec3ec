import { markTrusted } from '../guard.js';
import { StoreFullError } from '../store-full.js';
import type { KeyValueStore } from '../types.js';
import type { Clearable } from './clearable.js';
import { ExpiringMap } from './expiring-map.js';

/** Options of {@link memoryKeyValueStore}. */
export interface MemoryKeyValueStoreOptions {
  /**
   * Most unexpired keys held at once. When that many are held, `set` and `add` of a new key throw
   * {@link StoreFullError} (the caller answers 503) until some expire. Default 100,000.
   */
  readonly maxEntries?: number;
}

interface Entry {
  readonly value: string;
  readonly expiresAt: number;
}

/**
 * In-memory {@link KeyValueStore}, for one process. Each method runs in one synchronous block, so
 * concurrent callers cannot interleave inside `add`, `take` or `swap`.
 */
export function memoryKeyValueStore(options: MemoryKeyValueStoreOptions = {}): KeyValueStore & Clearable {
  const maxEntries = options.maxEntries ?? 100_000;
  const entries = new ExpiringMap<Entry>();
  const put = (key: string, entry: Entry, now: number) => {
    if (entries.size >= maxEntries && entries.get(key, now) === undefined) {
      entries.sweepAll(now);
      if (entries.size >= maxEntries) throw new StoreFullError('in-memory key-value');
    }
    entries.set(key, entry, now);
  };
  return markTrusted({
    clear() {
      entries.clear();
    },
    async get(key, now) {
      return entries.get(key, now)?.value ?? null;
    },
    async set(key, value, expiresAt) {
      const now = Date.now();
      if (expiresAt <= now) {
        entries.delete(key);
        return;
      }
      put(key, { value, expiresAt }, now);
    },
    async add(key, value, expiresAt, now) {
      if (entries.get(key, now) !== undefined) return false;
      if (expiresAt <= now) return true;
      put(key, { value, expiresAt }, now);
      return true;
    },
    async take(key, now) {
      const entry = entries.get(key, now);
      if (entry === undefined) return null;
      entries.delete(key);
      return entry.value;
    },
    async swap(key, expected, value, expiresAt, now) {
      const entry = entries.get(key, now);
      if (entry === undefined || entry.value !== expected) return false;
      if (expiresAt <= now) entries.delete(key);
      else entries.set(key, { value, expiresAt }, now);
      return true;
    },
    async delete(key) {
      entries.delete(key);
    },
  });
}
