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
}

/**
 * In-memory {@link ReplayStore}, for one process. The check and the write run in one synchronous
 * block, so concurrent callers cannot both win. Bounded: an unauthenticated caller can make it
 * remember ids, so it answers `false` rather than grow past `maxEntries`.
 */
export function memoryReplayStore(options: MemoryReplayStoreOptions = {}): ReplayStore & Clearable {
  const maxEntries = options.maxEntries ?? 100_000;
  const used = new ExpiringMap<{ readonly expiresAt: number }>();
  return markTrusted({
    clear() {
      used.clear();
    },
    async useOnce(id, expiresAt, now) {
      if (expiresAt <= now || used.get(id, now) !== undefined) return false;
      if (used.size >= maxEntries) {
        used.sweepAll(now);
        if (used.size >= maxEntries) return false;
      }
      used.set(id, { expiresAt }, now);
      return true;
    },
  });
}
