/** What an {@link ExpiringStore} holds: an item that carries its own key (for the sweep) and expiry. */
export interface Expiring {
  readonly key: string;
  readonly expiresAt: number;
}

/**
 * A Map of items whose expiry (epoch ms) they carry themselves. Expired items are invisible to
 * `get` and are swept incrementally on writes, so memory stays bounded by the live set without
 * timers (which edge runtimes and test runners dislike).
 *
 * The engine's compact records (a code, a refresh token, a key-value entry) are their own items,
 * so a record costs one object, not a record and a wrapper around it. Each store holds one kind of
 * item, and the kinds are few, so reading `expiresAt` here stays a polymorphic (not megamorphic)
 * load.
 */
export class ExpiringStore<S extends Expiring> {
  readonly #items = new Map<string, S>();
  #sweepCursor: IterableIterator<S> | undefined;
  readonly #onExpired: ((item: S) => void) | undefined;

  /** `onExpired` hears of each item the store drops because it expired (not of `delete` or `clear`). */
  constructor(onExpired?: (item: S) => void) {
    this.#onExpired = onExpired;
  }

  get(key: string, now: number): S | undefined {
    const item = this.#items.get(key);
    if (item === undefined) return undefined;
    if (item.expiresAt <= now) {
      this.#drop(item);
      return undefined;
    }
    return item;
  }

  /** Stores `item` under its key and sweeps a few items. */
  put(item: S, now: number): void {
    this.#items.set(item.key, item);
    this.#sweep(now);
  }

  /** Stores `item` without sweeping (for writers that know no current time). */
  replace(item: S): void {
    this.#items.set(item.key, item);
  }

  delete(key: string): void {
    this.#items.delete(key);
  }

  /** Forgets every item. */
  clear(): void {
    this.#items.clear();
    this.#sweepCursor = undefined;
  }

  /** Drops every expired item now (a full pass: for bounded stores that are full). */
  sweepAll(now: number): void {
    for (const item of this.#items.values()) if (item.expiresAt <= now) this.#drop(item);
    this.#sweepCursor = undefined;
  }

  get size(): number {
    return this.#items.size;
  }

  /** Every item, expired ones included (callers filter by `expiresAt`). */
  values(): IterableIterator<S> {
    return this.#items.values();
  }

  /**
   * Looks at up to `steps` more items (continuing where the last look stopped) and drops the
   * expired ones: for a bounded store that needs room now, beyond the few items each write sweeps.
   */
  prune(now: number, steps: number): void {
    this.#sweep(now, steps);
  }

  /** Looks at a few items per write and drops the expired ones. */
  #sweep(now: number, steps = 4): void {
    for (let i = 0; i < steps; i++) {
      this.#sweepCursor ??= this.#items.values();
      const next = this.#sweepCursor.next();
      if (next.done) {
        this.#sweepCursor = undefined;
        return;
      }
      const item = next.value;
      if (item.expiresAt <= now) this.#drop(item);
    }
  }

  /** Drops an expired item. */
  #drop(item: S): void {
    this.#items.delete(item.key);
    this.#onExpired?.(item);
  }
}

/**
 * An {@link ExpiringStore} of values that do not carry their key: each is kept in an
 * {@link Entry} with its key and expiry beside it. The revocation maps (of the engine and of the
 * pushed-revocations mirror) and the client registry go through it: their values have several
 * shapes, and the bearer check reads their expiry through one shape, the entry's.
 */
export class ExpiringMap<V extends { readonly expiresAt: number }> {
  readonly #store: ExpiringStore<Entry<V>>;

  /** `onExpired` hears of each entry the map drops because it expired (not of `delete` or `clear`). */
  constructor(onExpired?: (key: string, value: V) => void) {
    this.#store = new ExpiringStore<Entry<V>>(onExpired && ((entry) => onExpired(entry.key, entry.value)));
  }

  get(key: string, now: number): V | undefined {
    return this.#store.get(key, now)?.value;
  }

  /**
   * Stores `value` and sweeps a few entries. `expiresAt` is the value's own (a caller that has it
   * at hand passes it, read where the value's shape is known).
   */
  set(key: string, value: V, now: number, expiresAt: number = value.expiresAt): void {
    this.#store.put(new Entry(key, value, expiresAt), now);
  }

  /** Stores `value` without sweeping (for writers that know no current time). */
  replace(key: string, value: V): void {
    this.#store.replace(new Entry(key, value, value.expiresAt));
  }

  delete(key: string): void {
    this.#store.delete(key);
  }

  /** Forgets every entry. */
  clear(): void {
    this.#store.clear();
  }

  /** Drops every expired entry now (a full pass: for bounded stores that are full). */
  sweepAll(now: number): void {
    this.#store.sweepAll(now);
  }

  get size(): number {
    return this.#store.size;
  }

  /** Every value, expired ones included (callers filter by `expiresAt`). */
  *values(): IterableIterator<V> {
    for (const entry of this.#store.values()) yield entry.value;
  }

  /** Every entry, expired ones included (callers filter by `expiresAt`). */
  *entries(): IterableIterator<[string, V]> {
    for (const entry of this.#store.values()) yield [entry.key, entry.value];
  }

  /** See {@link ExpiringStore.prune}. */
  prune(now: number, steps: number): void {
    this.#store.prune(now, steps);
  }
}

/** One stored value, its key (for the sweep) and its expiry. */
class Entry<V> implements Expiring {
  constructor(
    readonly key: string,
    readonly value: V,
    readonly expiresAt: number,
  ) {}
}
