import { StorageUnavailableError } from '../errors.js';
import { isStoreFull } from './store-full.js';

const TRUSTED = Symbol.for('gatehouse.storage.trusted');

/** Marks a store as in-process and infallible (the memory engines), so it is used unguarded. */
export function markTrusted<T extends object>(store: T): T {
  Object.defineProperty(store, TRUSTED, { value: true });
  return store;
}

/**
 * Wraps every method of a store so that a rejection, a synchronous throw or a call slower than
 * `timeoutMs` becomes a {@link StorageUnavailableError} (answered 503); a `StoreFullError` passes
 * as it is (also answered 503, logged once per minute). A call that times out may
 * still complete in the engine; the contract's atomic operations make that harmless.
 */
export function guardStore<T extends object>(store: T, timeoutMs: number): T {
  if ((store as Record<symbol, unknown>)[TRUSTED]) return store;
  const guarded: Record<string, unknown> = {};
  for (const name of methodNames(store)) {
    const method = (store as Record<string, unknown>)[name] as (...args: unknown[]) => unknown;
    guarded[name] = (...args: unknown[]) => callGuarded(() => method.apply(store, args), timeoutMs);
  }
  return guarded as T;
}

/** The names of a store's methods, own and inherited (classes), but the constructor. */
export function methodNames(store: object): string[] {
  const names = new Set<string>();
  for (
    let proto: object | null = store;
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto)
  ) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name !== 'constructor' && typeof (store as Record<string, unknown>)[name] === 'function')
        names.add(name);
    }
  }
  return [...names];
}

async function callGuarded(call: () => unknown, timeoutMs: number): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Error(`storage call timed out after ${timeoutMs} ms`);
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(timedOut), timeoutMs);
    });
    return await Promise.race([Promise.resolve().then(call), timeout]);
  } catch (error) {
    // A full store is a refusal the engine decided on, not a failure: errorAnswer answers it.
    if (isStoreFull(error)) throw error;
    throw new StorageUnavailableError(
      error,
      error === timedOut ? 'ERR_STORAGE_TIMEOUT' : 'ERR_STORAGE_UNAVAILABLE',
    );
  } finally {
    clearTimeout(timer);
  }
}
