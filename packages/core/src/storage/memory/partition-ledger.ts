/**
 * Who holds how many entries of one bounded namespace of the memory engine, so that a full
 * namespace makes room from the partition that holds the most ("fair shares", issue 41) instead of
 * refusing everyone: the keys of each partition in the order they were written (oldest first), the
 * partitions grouped by how many keys they hold (so the heaviest is found in constant time, however
 * many partitions a flood brings), and the partitions closed after an eviction.
 *
 * A closed partition may not add keys until the entries evicted from it would have expired: an
 * evicted replay id or rate-limit counter is thereby never forgotten by the party that paid for it
 * (its new ids and windows are refused meanwhile, as if the evicted entries were still there).
 */
export class PartitionLedger {
  /** Each partition's keys, oldest first (a `Set` keeps insertion order). */
  readonly #keys = new Map<string, Set<string>>();
  /** The partitions holding exactly `n` keys, by `n`. */
  readonly #byCount = new Map<number, Set<string>>();
  #heaviestCount = 0;
  /** Closed partitions: until when (epoch ms). */
  readonly #closedUntil = new Map<string, number>();
  readonly #maxClosed: number;

  /** `maxClosed` bounds the closed partitions remembered at once (see {@link close}). */
  constructor(maxClosed: number) {
    this.#maxClosed = maxClosed;
  }

  /** How many keys `partition` holds. */
  count(partition: string): number {
    return this.#keys.get(partition)?.size ?? 0;
  }

  /** Records `key` as held by `partition` (written anew: it becomes the partition's newest). */
  add(partition: string, key: string): void {
    let keys = this.#keys.get(partition);
    if (keys === undefined) {
      keys = new Set();
      this.#keys.set(partition, keys);
    } else if (keys.has(key)) {
      keys.delete(key);
      keys.add(key);
      return;
    }
    const before = keys.size;
    keys.add(key);
    this.#move(partition, before, before + 1);
  }

  /** Forgets that `partition` holds `key` (expired, deleted, taken, or rewritten without it). */
  remove(partition: string, key: string): void {
    const keys = this.#keys.get(partition);
    if (keys === undefined || !keys.delete(key)) return;
    const after = keys.size;
    if (after === 0) this.#keys.delete(partition);
    this.#move(partition, after + 1, after);
  }

  /** The partition holding the most keys (any one of them on a tie), or `undefined` when none holds any. */
  heaviest(): string | undefined {
    if (this.#heaviestCount === 0) return undefined;
    for (const partition of this.#byCount.get(this.#heaviestCount) ?? []) return partition;
    return undefined;
  }

  /** The oldest key `partition` holds. */
  oldest(partition: string): string | undefined {
    for (const key of this.#keys.get(partition) ?? []) return key;
    return undefined;
  }

  /** Whether `partition` may not add keys at `now`. */
  isClosed(partition: string, now: number): boolean {
    const until = this.#closedUntil.get(partition);
    if (until === undefined) return false;
    if (until > now) return true;
    this.#closedUntil.delete(partition);
    return false;
  }

  /**
   * Closes `partition` until `until` (or later, if it is closed longer already). Answers `false`
   * when the ledger remembers `maxClosed` closed partitions still closed at `now`: the caller then
   * must not evict (it refuses instead), since it could not keep the eviction from being forgotten.
   */
  close(partition: string, until: number, now: number): boolean {
    const current = this.#closedUntil.get(partition);
    if (current === undefined && this.#closedUntil.size >= this.#maxClosed) {
      for (const [name, end] of this.#closedUntil) if (end <= now) this.#closedUntil.delete(name);
      if (this.#closedUntil.size >= this.#maxClosed) return false;
    }
    if (current === undefined || until > current) this.#closedUntil.set(partition, until);
    return true;
  }

  /** Forgets everything. */
  clear(): void {
    this.#keys.clear();
    this.#byCount.clear();
    this.#closedUntil.clear();
    this.#heaviestCount = 0;
  }

  /** Moves `partition` from the group of `from` keys to that of `to` (they differ by one). */
  #move(partition: string, from: number, to: number): void {
    if (from > 0) {
      const group = this.#byCount.get(from)!;
      group.delete(partition);
      if (group.size === 0) this.#byCount.delete(from);
    }
    if (to > 0) {
      let group = this.#byCount.get(to);
      if (group === undefined) {
        group = new Set();
        this.#byCount.set(to, group);
      }
      group.add(partition);
    }
    if (to > this.#heaviestCount) this.#heaviestCount = to;
    else if (from === this.#heaviestCount && !this.#byCount.has(from)) this.#heaviestCount = to;
  }
}
