import { markTrusted } from '../guard.js';
import type { RateLimitStore, RateLimitWindow } from '../types.js';
import { ExpiringMap } from './expiring-map.js';

interface Window extends RateLimitWindow {
  readonly expiresAt: number;
}

/** In-memory {@link RateLimitStore}: fixed windows, for one process. */
export function memoryRateLimitStore(): RateLimitStore {
  const windows = new ExpiringMap<Window>();
  return markTrusted({
    async get(key, now) {
      const window = windows.get(key, now);
      return window ? { count: window.count, resetAt: window.resetAt } : null;
    },
    async increment(key, windowMs, now) {
      const current = windows.get(key, now);
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
