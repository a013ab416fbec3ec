import { markTrusted } from '../guard.js';
import type { RateLimitStore, RateLimitWindow } from '../types.js';
import type { Clearable } from './clearable.js';
import { ExpiringMap } from './expiring-map.js';

interface Window extends RateLimitWindow {
  readonly expiresAt: number;
}

/**
 * Default bound of {@link memoryRateLimitStore}: 100,000 windows, about 20 MB. With the default
 * limits the password limiter keeps at most ~104 windows per client address (and IPv6 /64), so it
 * takes some 1,000 addresses failing at full speed within 30 minutes to fill it.
 */
export const DEFAULT_RATE_LIMIT_ENTRIES = 100_000;

/** Options of {@link memoryRateLimitStore}. */
export interface MemoryRateLimitStoreOptions {
  /** Most windows kept at once (at least 1). Default {@link DEFAULT_RATE_LIMIT_ENTRIES}. */
  readonly maxEntries?: number;
}

/** What a full store answers for a key it has no room for: a count over any limit. */
const SATURATED = Number.MAX_SAFE_INTEGER;
/** Entries looked at for expired ones before a new key is refused for want of room. */
const PRUNE_STEPS = 64;

/**
 * In-memory {@link RateLimitStore}: fixed windows, for one process, bounded to `maxEntries` windows.
 *
 * When full, it never evicts a live window (an attacker filling the store must not reset anyone's
 * counters, least of all its own) and never grows: a new key gets a window counted
 * `Number.MAX_SAFE_INTEGER`, stored nowhere, so the limiter refuses that attempt (429) while the
 * windows already counting keep counting. Room comes back as windows end (each increment looks at
 * a few entries for expired ones). Under such a flood, logins needing a new window are refused
 * until then: refusing is the degraded mode, growing without bound is not an option.
 */
export function memoryRateLimitStore(options: MemoryRateLimitStoreOptions = {}): RateLimitStore & Clearable {
  const maxEntries = options.maxEntries ?? DEFAULT_RATE_LIMIT_ENTRIES;
  if (!Number.isInteger(maxEntries) || maxEntries < 1)
    throw new RangeError('memoryRateLimitStore: maxEntries must be a positive whole number.');
  const windows = new ExpiringMap<Window>();
  return markTrusted({
    clear() {
      windows.clear();
    },
    async get(key, now) {
      const window = windows.get(key, now);
      return window ? { count: window.count, resetAt: window.resetAt } : null;
    },
    async increment(key, windowMs, now) {
      const current = windows.get(key, now);
      if (!current && windows.size >= maxEntries) {
        windows.prune(now, PRUNE_STEPS);
        if (windows.size >= maxEntries) return { count: SATURATED, resetAt: now + windowMs };
      }
      const resetAt = current?.resetAt ?? now + windowMs;
      const next = { count: (current?.count ?? 0) + 1, resetAt, expiresAt: resetAt };
      windows.set(key, next, now);
      return { count: next.count, resetAt };
    },
    async reset(key) {
      windows.delete(key);
    },
  });
}
