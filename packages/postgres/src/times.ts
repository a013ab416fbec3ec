/**
 * Times cross into SQL as `bigint` epoch milliseconds, which reject fractions. Callers may pass any
 * number (`performance.now()`-based clocks, computed expiries), so every time is rounded at this
 * boundary, in the direction that never extends what the caller granted by more than 1 ms:
 * instants ("now", issued/seen/consumed times) round down, expiries and durations round up.
 */

/** An instant (now, issuedAt, lastSeenAt, consumedAt…), rounded down to a whole millisecond. */
export const instant = (epochMs: number): number => Math.floor(epochMs);

/** An expiry or a duration, rounded up to a whole millisecond. */
export const expiry = (epochMs: number): number => Math.ceil(epochMs);
