/**
 * A Map whose entries carry an expiry (epoch ms). Expired entries are invisible to `get` and are
 * swept incrementally on writes, so memory stays bounded by the live set without timers (which
 * edge runtimes and test runners dislike).
 *
 * Each value is kept in an {@link Entry} with its expiry beside it: every map of the engine (codes,
 * refresh tokens, revocations, key-value entries) goes through this one class, so reading
 * `value.expiresAt` here met records of many shapes and was a megamorphic property load (a
 * stub-cache lookup, or a full one, per read). An entry's `expiresAt` always has the same shape.
 */
export class ExpiringMap<V extends { readonly expiresAt: number }> {
  readonly #entries = new Map<string, Entry<V>>();
  #sweepCursor: IterableIterator<Entry<V>> | undefined;
  readonly #onExpired: ((key: string, value: V) => void) | undefined;

  /** `onExpired` hears of each entry the map drops because it expired (not of `delete` or `clear`). */
  constructor(onExpired?: (key: string, value: V) => void) {
    this.#onExpired = onExpired;
  }

  get(key: string, now: number): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= now) {
      this.#drop(entry);
      return undefined;
    }
    return entry.value;
  }

  /**
   * Stores `value` and sweeps a few entries. `expiresAt` is the value's own (a caller that has it
   * at hand passes it, read where the value's shape is known).
   */
  set(key: string, value: V, now: number, expiresAt: number = value.expiresAt): void {
    this.#entries.set(key, new Entry(key, value, expiresAt));
    this.#sweep(now);
  }

  /** Stores `value` without sweeping (for writers that know no current time). */
  replace(key: string, value: V): void {
    this.#entries.set(key, new Entry(key, value, value.expiresAt));
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  /** Forgets every entry. */
  clear(): void {
    this.#entries.clear();
    this.#sweepCursor = undefined;
  }

  /** Drops every expired entry now (a full pass: for bounded stores that are full). */
  sweepAll(now: number): void {
    for (const entry of this.#entries.values()) if (entry.expiresAt <= now) this.#drop(entry);
    this.#sweepCursor = undefined;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Every value, expired ones included (callers filter by `expiresAt`). */
  *values(): IterableIterator<V> {
    for (const entry of this.#entries.values()) yield entry.value;
  }

  /** Every entry, expired ones included (callers filter by `expiresAt`). */
  *entries(): IterableIterator<[string, V]> {
    for (const entry of this.#entries.values()) yield [entry.key, entry.value];
  }

  /**
   * Looks at up to `steps` more entries (continuing where the last look stopped) and drops the
   * expired ones: for a bounded map that needs room now, beyond the few entries each write sweeps.
   */
  prune(now: number, steps: number): void {
    this.#sweep(now, steps);
  }

  /** Looks at a few entries per write and drops the expired ones. */
  #sweep(now: number, steps = 4): void {
    for (let i = 0; i < steps; i++) {
      this.#sweepCursor ??= this.#entries.values();
      const next = this.#sweepCursor.next();
      if (next.done) {
        this.#sweepCursor = undefined;
        return;
      }
      const entry = next.value;
      if (entry.expiresAt <= now) this.#drop(entry);
    }
  }

  /** Drops an expired entry. */
  #drop(entry: Entry<V>): void {
    this.#entries.delete(entry.key);
    this.#onExpired?.(entry.key, entry.value);
  }
}

/** One stored value, its key (for the sweep) and its expiry. */
class Entry<V> {
  constructor(
    readonly key: string,
    readonly value: V,
    readonly expiresAt: number,
  ) {}
}
