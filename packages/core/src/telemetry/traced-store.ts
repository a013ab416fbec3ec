import { methodNames } from '../storage/guard.js';
import type { Telemetry } from './telemetry.js';

/**
 * Wraps every method of a store so that each call is timed and, inside a traced request, gets its
 * span (`gatehouse.storage {store}.{method}`). Without a loaded API the wrapper is one property
 * check per call.
 */
export function tracedStore<T extends object>(store: T, name: string, telemetry: Telemetry): T {
  // The store as prototype: its other properties (capability flags, symbols) stay visible.
  const traced = Object.create(store) as Record<string, unknown>;
  for (const method of methodNames(store)) {
    const call = (store as Record<string, unknown>)[method] as (...args: unknown[]) => unknown;
    traced[method] = (...args: unknown[]) =>
      telemetry.storageCall(name, method, () => call.apply(store, args));
  }
  return traced as T;
}
