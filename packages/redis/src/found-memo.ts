/**
 * What a lookup (`findCode`, `findRefreshToken`) learned about a live record that the atomic step
 * on the same record (`redeemCode`, `rotateRefreshToken`) needs before its script can run: the
 * grant (from the pointer), the user's mark in force and, for a refresh token, its predecessor.
 * Gatehouse's token endpoint looks a record up and then consumes it with the same `now`, so the
 * consume reuses these answers instead of reading the pointer and the mark again (two round trips).
 */
export interface FoundRecord {
  readonly grantId: string;
  readonly userId?: string;
  /** The `at` of the user's mark in force at `now`, as the scripts take it ('' for none). */
  readonly markAt: string;
  /** A refresh token's predecessor (the token whose rotation stored it), if known. */
  readonly previousHash?: string;
  /**
   * The record's JSON as read, and the record parsed from it: a consume whose script replies the
   * same JSON answers this record instead of parsing it again.
   */
  readonly json?: string;
  readonly record?: object;
}

/** Entries kept at most: lookups that are never followed by a consume (introspection) age out. */
const CAPACITY = 256;

/**
 * A short-lived, bounded memo of {@link FoundRecord}s, keyed by pointer key and the caller's `now`:
 * an entry serves only a consume claiming the same instant as its lookup, once. Holds no secret
 * (pointer keys carry hashes).
 */
export class FoundMemo {
  readonly #entries = new Map<string, { now: number; found: FoundRecord }>();

  remember(pointer: string, now: number, found: FoundRecord): void {
    this.#entries.delete(pointer);
    if (this.#entries.size >= CAPACITY) {
      // A Map iterates in insertion order: the first key is the oldest entry.
      this.#entries.delete(this.#entries.keys().next().value!);
    }
    this.#entries.set(pointer, { now, found });
  }

  /** The entry for `pointer` remembered at `now`, removed from the memo; otherwise `undefined`. */
  take(pointer: string, now: number): FoundRecord | undefined {
    const entry = this.#entries.get(pointer);
    if (entry === undefined) return undefined;
    this.#entries.delete(pointer);
    return entry.now === now ? entry.found : undefined;
  }

  /** Forgets every entry of `userId`: a mark just written must not be answered by an older read. */
  forgetUser(userId: string): void {
    for (const [pointer, entry] of this.#entries) {
      if (entry.found.userId === userId) this.#entries.delete(pointer);
    }
  }
}
