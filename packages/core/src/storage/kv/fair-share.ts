import type { EpochMs, Milliseconds } from '../../time.js';
import type { KeyValueWriteOptions } from '../types.js';
import type { RateLimitStore } from './state-stores.js';

/*
 * Fair shares (issue 41): the one mechanism by which every store an unauthenticated caller can
 * write is bounded without a global limit that one caller could fill for everyone. An entry is
 * charged to whoever pays for it (a client network, counted as its address and as its /24 or /48
 * aggregate; a client; a user; a token), each share with a quota of new entries per window, on the
 * rate-limit windows of the instance's `kv` (every engine alike). The entry itself is then written
 * with the payer's partition (`Payer.write`), so that an engine with a global bound (memory) makes
 * room from the heaviest partition rather than refusing a lighter one (`PartitionLedger`).
 */

/** A partition charged for an entry, and how many new entries it may make per window. */
export interface Share {
  /** Fixed-size name: `addr:<digest>`, `net:<digest>`, `client:<digest>`, `user:<digest>`, `token:<digest>`. */
  readonly partition: string;
  readonly quota: number;
}

/** Who pays for an entry. */
export interface Payer {
  /** The shares charged, finest first (the address before its aggregate). */
  readonly shares: readonly Share[];
  /** How to write the entry (and its counters): charged to the coarsest share's partition. */
  readonly write: KeyValueWriteOptions;
}

/** A payer of one share. */
export function singlePayer(partition: string, quota: number): Payer {
  return { shares: [{ partition, quota }], write: { partition } };
}

/** The outcome of {@link FairShareBudget.charge}. */
export type Charge =
  /** `filled`: this entry used the last of a share (worth one audit event per window). */
  | { readonly charged: true; readonly filled: boolean }
  | { readonly charged: false; readonly retryAt: EpochMs };

/** One kind of stored entry's budget: each payer's shares of new entries per window. */
export interface FairShareBudget {
  /**
   * Whether `payer` may have one more entry now, without charging it (for entries charged only
   * once known to be kept, e.g. a call answered inactive): read-only.
   */
  check(payer: Payer, now: EpochMs): Promise<Charge>;
  /**
   * Charges one new entry to every share of `payer`. A share at its quota already refuses without
   * writing anything (its counters are read first); a share found over its quota after the atomic
   * increment (a concurrent burst) refuses too. A store with no room for the counters refuses
   * (their window is answered saturated).
   */
  charge(payer: Payer, now: EpochMs): Promise<Charge>;
}

/**
 * The budget of the entries named `name` (`interaction`, `device-auth`, `par`, `once`, …), in fixed
 * windows of `windowMs`: counters `share-<name>:<partition>` of the rate-limit store.
 */
export function fairShareBudget(
  rateLimits: RateLimitStore,
  name: string,
  windowMs: Milliseconds,
): FairShareBudget {
  // `share-<name>:`: each budget's windows are a namespace of their own in the memory engine.
  const keyOf = (share: Share) => `share-${name}:${share.partition}`;
  /** When the first spent share of `payer` has room again, or `undefined` when none is spent. */
  const spentUntil = async (payer: Payer, now: EpochMs): Promise<EpochMs | undefined> => {
    const windows = await Promise.all(payer.shares.map((share) => rateLimits.get(keyOf(share), now)));
    let retryAt: number | undefined;
    payer.shares.forEach((share, i) => {
      const window = windows[i];
      if (window && window.count >= share.quota) retryAt = Math.max(retryAt ?? 0, window.resetAt);
    });
    return retryAt;
  };
  return {
    async check(payer, now) {
      const retryAt = await spentUntil(payer, now);
      return retryAt === undefined ? { charged: true, filled: false } : { charged: false, retryAt };
    },
    async charge(payer, now) {
      let retryAt = await spentUntil(payer, now);
      if (retryAt !== undefined) return { charged: false, retryAt };
      const charged = await Promise.all(
        payer.shares.map((share) => rateLimits.increment(keyOf(share), windowMs, now, payer.write)),
      );
      let filled = false;
      payer.shares.forEach((share, i) => {
        const window = charged[i]!;
        if (window.count > share.quota) retryAt = Math.max(retryAt ?? 0, window.resetAt);
        else if (window.count === share.quota) filled = true;
      });
      return retryAt === undefined ? { charged: true, filled } : { charged: false, retryAt };
    },
  };
}
