import { isStoreFull } from '../store-full.js';
import type { KeyValueStore } from '../types.js';
import { onceKey, onceQuotaKey } from './keys.js';
import type { ReplayStore } from './state-stores.js';

/** Options of {@link kvReplayStore}. */
export interface KvReplayStoreOptions {
  /**
   * Most new ids one partition (one client's assertions) may record in its window, which starts at
   * its first id and ends when that id expires. Past it, its new ids are refused until the window
   * ends; other partitions are not affected. Default 1,000: a client's assertions live at most
   * about five minutes (`exp` + clock tolerance), so that is over three fresh assertions a second,
   * sustained. A call's own `quota` (a client's `maxAssertionsPerWindow`) replaces it.
   */
  readonly maxIdsPerPartition?: number;
}

/**
 * {@link ReplayStore} on the key-value store: a used id is a key set with `add` (set-if-absent, so
 * of concurrent callers exactly one wins), kept until the id expires. A partition's quota is a
 * counter (`increment`) charged before the id is recorded (a known id is refused first, uncharged),
 * so a party that fills its share is refused without recording anything; a store with no room
 * (`StoreFullError`) refuses too.
 */
export function kvReplayStore(kv: KeyValueStore, options: KvReplayStoreOptions = {}): ReplayStore {
  const maxPerPartition = options.maxIdsPerPartition ?? 1_000;
  return {
    async useOnce(id, expiresAt, now, partition, quota = maxPerPartition) {
      if (expiresAt <= now) return false;
      try {
        if (partition !== undefined) {
          // A replay is refused before it is charged: replaying a client's assertion must not eat
          // into that client's quota.
          if ((await kv.get(onceKey(id), now)) !== null) return false;
          const used = await kv.increment(onceQuotaKey(partition), 1, expiresAt, now, { partition });
          if (used > quota) return false;
        }
        // Written charged to its partition: a full memory store makes room from the heaviest
        // partition and closes it meanwhile, so an evicted id is never accepted again from it.
        return await kv.add(
          onceKey(id),
          '1',
          expiresAt,
          now,
          partition === undefined ? undefined : { partition },
        );
      } catch (error) {
        // Refusing a proof is safe; accepting a replay is not.
        if (isStoreFull(error)) return false;
        throw error;
      }
    },
  };
}
