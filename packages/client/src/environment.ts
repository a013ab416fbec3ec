import {
  memoryTransactionStore,
  sessionStorageTransactionStore,
  type TransactionStore,
} from './transaction-store.js';

/**
 * Whether this code runs in a browser page: a global `window` or `document` exists. The client
 * refuses client secrets there, since anything shipped to a browser is public.
 */
export function isBrowser(): boolean {
  const scope = globalThis as { window?: unknown; document?: unknown };
  return scope.window !== undefined || scope.document !== undefined;
}

/** sessionStorage where there is one, memory elsewhere. */
export function defaultTransactionStore(): TransactionStore {
  const scope = globalThis as { sessionStorage?: unknown };
  return scope.sessionStorage ? sessionStorageTransactionStore() : memoryTransactionStore();
}

/** The part of the Web Locks API the refresher uses. */
export interface LockManagerLike {
  request<T>(name: string, callback: () => Promise<T>): Promise<T>;
  /**
   * The held and pending locks (`navigator.locks.query()`). Optional: with it, a tab that finds a
   * refresh token another tab has already rotated waits for the new token set (see `createRefresher`).
   */
  query?(): Promise<{ readonly held?: readonly { readonly name?: string }[] }>;
}

/** `navigator.locks` where the runtime has it (browsers), else `null`. */
export function defaultLocks(): LockManagerLike | null {
  const scope = globalThis as { navigator?: { locks?: LockManagerLike } };
  return scope.navigator?.locks ?? null;
}
