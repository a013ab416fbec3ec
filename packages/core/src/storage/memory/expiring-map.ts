/**
 * A Map whose entries carry an expiry (epoch ms). Expired entries are invisible to `get` and are
 * swept incrementally on writes, so memory stays bounded by the live set without timers (which
 * edge runtimes and test runners dislike).
 */
export class ExpiringMap<V extends { readonly expiresAt: number }> {
  readonly #entries = new Map<string, V>();
  #sweepCursor: IterableIterator<[string, V]> | undefined;

  get(key: string, now: number): V | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    if (value.expiresAt <= now) {
      this.#entries.delete(key);
      return undefined;
    }
    return value;
  }

  set(key: string, value: V, now: number): void {
    this.#entries.set(key, value);
    this.#sweep(now);
  }

  /** Stores `value` without sweeping (for writers that know no current time). */
  replace(key: string, value: V): void {
    this.#entries.set(key, value);
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
    for (const [key, value] of this.#entries) if (value.expiresAt <= now) this.#entries.delete(key);
    this.#sweepCursor = undefined;
  }

  get size(): number {
    return this.#entries.size;
  }

  values(): IterableIterator<V> {
    return this.#entries.values();
  }

  /** Every entry, expired ones included (callers filter by `expiresAt`). */
  entries(): IterableIterator<[string, V]> {
    return this.#entries.entries();
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
      this.#sweepCursor ??= this.#entries.entries();
      const next = this.#sweepCursor.next();
      if (next.done) {
        this.#sweepCursor = undefined;
        return;
      }
      const [key, value] = next.value;
      if (value.expiresAt <= now) this.#entries.delete(key);
    }
  }
}
