import { markTrusted } from '../guard.js';
import type { ReplayStore } from '../types.js';
import type { Clearable } from './clearable.js';
import { ExpiringMap } from './expiring-map.js';

/** Options of {@link memoryReplayStore}. */
export interface MemoryReplayStoreOptions {
  /**
   * Most ids remembered at once. When that many unexpired ids are remembered, new ones are refused
   * (`useOnce` answers `false`) until some expire. Default 100,000.
   */
  readonly maxEntries?: number;
  /**
   * Most ids remembered at once for one partition (one client's assertions). When a partition has
   * that many unexpired ids, its new ones are refused until some expire; other partitions are not
   * affected. Default 1,000: a client's assertions live at most about five minutes
   * (`exp` + clock tolerance), so that is over three fresh assertions a second, sustained.
   */
  readonly maxEntriesPerPartition?: number;
}

interface UsedId {
  readonly expiresAt: number;
}

/**
 * In-memory {@link ReplayStore}, for one process. The check and the write run in one synchronous
 * block, so concurrent callers cannot both win. Bounded: an unauthenticated caller can make it
 * remember ids (a self-registered client signs as many assertions as it likes), so it answers
 * `false` rather than grow past `maxEntries` in all, or past `maxEntriesPerPartition` for one
 * partition: a client that fills its share locks out only itself.
 */
export function memoryReplayStore(options: MemoryReplayStoreOptions = {}): ReplayStore & Clearable {
  const maxEntries = options.maxEntries ?? 100_000;
  const maxPerPartition = options.maxEntriesPerPartition ?? 1_000;
  const used = new ExpiringMap<UsedId>();
  /** Per partition: the expiries of its ids, oldest first (ids are refused, never evicted). */
  const partitions = new Map<string, number[]>();

  /** The partition's live ids after dropping the expired ones; forgets an empty partition. */
  const liveCount = (partition: string, now: number): number => {
    const expiries = partitions.get(partition);
    if (!expiries) return 0;
    let expired = 0;
    while (expired < expiries.length && expiries[expired]! <= now) expired++;
    if (expired > 0) expiries.splice(0, expired);
    if (expiries.length === 0) partitions.delete(partition);
    return expiries.length;
  };
  // Partitions nobody asks about again are found by a cursor that looks at a few per write.
  let cursor: IterableIterator<string> | undefined;
  const sweepPartitions = (now: number) => {
    for (let i = 0; i < 4; i++) {
      cursor ??= partitions.keys();
      const next = cursor.next();
      if (next.done) {
        cursor = undefined;
        return;
      }
      liveCount(next.value, now);
    }
  };
  const remember = (partition: string, expiresAt: number) => {
    const expiries = partitions.get(partition) ?? [];
    // Kept sorted so the expired ones are at the front (most ids arrive in expiry order).
    let at = expiries.length;
    while (at > 0 && expiries[at - 1]! > expiresAt) at--;
    expiries.splice(at, 0, expiresAt);
    partitions.set(partition, expiries);
  };

  return markTrusted({
    clear() {
      used.clear();
      partitions.clear();
      cursor = undefined;
    },
    async useOnce(id, expiresAt, now, partition) {
      if (expiresAt <= now || used.get(id, now) !== undefined) return false;
      if (partition !== undefined && liveCount(partition, now) >= maxPerPartition) return false;
      if (used.size >= maxEntries) {
        used.sweepAll(now);
        for (const name of partitions.keys()) liveCount(name, now);
        if (used.size >= maxEntries) return false;
      }
      used.set(id, { expiresAt }, now);
      if (partition !== undefined) remember(partition, expiresAt);
      sweepPartitions(now);
      return true;
    },
  });
}
