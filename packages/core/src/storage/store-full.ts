import type { ErrorCodeOf } from '../error-codes.js';

/**
 * Thrown by a bounded store that is full (a memory store at its entry cap; any engine's client
 * registry at the instance's `dynamicRegistration.maxClients`): the request is refused and
 * nothing is written. Answered 503 `temporarily_unavailable` with `Retry-After`
 * (`errors.ts` `errorAnswer`), logged at most once a minute per logger; never a 500. Engines
 * other than memory throw it too: the storage guard lets it through as it is.
 */
export class StoreFullError extends Error {
  /** Stable code (`ERROR_CODES` of `error-codes.ts`). */
  readonly code: ErrorCodeOf<'StoreFullError'> = 'ERR_STORAGE_FULL';
  /**
   * `true` when the store refused this writer only: it is full and the writer's partition already
   * holds its fair share (as much as any other), so others still get room. Answered 429
   * `too_many_requests` (the caller's share is spent) rather than 503 (the service is not down).
   */
  readonly shareSpent: boolean;
  constructor(
    store: string,
    detail = 'entries free up as they expire',
    options: { shareSpent?: boolean } = {},
  ) {
    super(`The ${store} store is full; ${detail}.`);
    this.name = 'StoreFullError';
    this.shareSpent = options.shareSpent === true;
  }
}

/**
 * Whether `error` is a {@link StoreFullError}, also one of another copy of this package (an engine
 * package may load its own): recognised by its stable code.
 */
export function isStoreFull(error: unknown): error is StoreFullError {
  return error instanceof Error && (error as { code?: unknown }).code === 'ERR_STORAGE_FULL';
}
