import { markTrusted } from '../guard.js';
import { StoreFullError } from '../store-full.js';
import type { KeyValueStore } from '../types.js';
import type { Clearable } from './clearable.js';
import { ExpiringMap } from './expiring-map.js';

/** Options of {@link memoryKeyValueStore}. */
export interface MemoryKeyValueStoreOptions {
  /**
   * Most unexpired keys held at once per namespace (the part of a key before its first `:`:
   * `session`, `rate`, `once`, `par`, …). When a namespace holds that many, `set`, `add` and
   * `increment` of a new key of it throw {@link StoreFullError} (the caller answers 503, or refuses
   * the attempt for rate limits and replay ids) until some expire; other namespaces are not
   * affected, so a flood of one kind of record (failed logins from many addresses) never locks out
   * another (sessions). Default 100,000.
   */
  readonly maxEntries?: number;
}

interface Entry {
  readonly value: string;
  readonly expiresAt: number;
}

/**
 * In-memory {@link KeyValueStore}, for one process. Each method runs in one synchronous block, so
 * concurrent callers cannot interleave inside `add`, `take`, `swap` or `increment`.
 */
export function memoryKeyValueStore(options: MemoryKeyValueStoreOptions = {}): KeyValueStore & Clearable {
  const maxEntries = options.maxEntries ?? 100_000;
  if (!Number.isInteger(maxEntries) || maxEntries < 1)
    throw new RangeError('memoryKeyValueStore: maxEntries must be a positive whole number.');
  const namespaces = new Map<string, ExpiringMap<Entry>>();
  /** The latest `now` a caller passed (the instance clock): what a full namespace is swept by. */
  let latest = Number.NEGATIVE_INFINITY;
  const seen = (now: number) => {
    if (now > latest) latest = now;
    return now;
  };
  const mapOf = (key: string) => {
    const at = key.indexOf(':');
    const name = at === -1 ? '' : key.slice(0, at);
    let map = namespaces.get(name);
    if (!map) {
      map = new ExpiringMap<Entry>();
      namespaces.set(name, map);
    }
    return map;
  };
  /** Stores `entry`; `now` is the caller's, or absent (`set`): then nothing else is swept. */
  const put = (key: string, entry: Entry, now: number | undefined) => {
    const entries = mapOf(key);
    if (entries.size >= maxEntries && entries.get(key, now ?? latest) === undefined) {
      entries.sweepAll(now ?? latest);
      if (entries.size >= maxEntries) throw new StoreFullError('in-memory key-value');
    }
    if (now === undefined) entries.replace(key, entry);
    else entries.set(key, entry, now);
  };
  return markTrusted({
    clear() {
      namespaces.clear();
    },
    async get(key, now) {
      seen(now);
      return mapOf(key).get(key, now)?.value ?? null;
    },
    async set(key, value, expiresAt) {
      // `set` is given no `now`: the entry is judged expired by the `now` of whoever reads it, and
      // the others are swept by the calls that give one (the instance clock, never Date.now()).
      put(key, { value, expiresAt }, undefined);
    },
    async add(key, value, expiresAt, now) {
      seen(now);
      if (mapOf(key).get(key, now) !== undefined) return false;
      if (expiresAt <= now) return true;
      put(key, { value, expiresAt }, now);
      return true;
    },
    async take(key, now) {
      seen(now);
      const entries = mapOf(key);
      const entry = entries.get(key, now);
      if (entry === undefined) return null;
      entries.delete(key);
      return entry.value;
    },
    async swap(key, expected, value, expiresAt, now) {
      seen(now);
      const entries = mapOf(key);
      const entry = entries.get(key, now);
      if (entry === undefined || entry.value !== expected) return false;
      if (expiresAt <= now) entries.delete(key);
      else entries.set(key, { value, expiresAt }, now);
      return true;
    },
    async increment(key, by, expiresAt, now) {
      seen(now);
      const current = mapOf(key).get(key, now);
      const count = (current === undefined ? 0 : Number(current.value)) + by;
      const until = current?.expiresAt ?? expiresAt;
      // A counter that would already have ended is counted but not kept.
      if (until > now) put(key, { value: String(count), expiresAt: until }, now);
      return count;
    },
    async delete(key) {
      mapOf(key).delete(key);
    },
  });
}
