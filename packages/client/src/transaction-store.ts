import type { KeyValueStorage } from './token-store.js';

/** What the client remembers between `authorizationUrl()` and `handleCallback()`. */
export interface AuthorizationTransaction {
  /** The PKCE code verifier (RFC 7636 §4.1). */
  readonly codeVerifier: string;
  /** The redirect URI of the authorization request, sent again with the code (RFC 6749 §4.1.3). */
  readonly redirectUri: string;
  /** When the transaction started, in Unix milliseconds. */
  readonly createdAt: number;
  /** The OpenID Connect `nonce` sent (scope `openid`): the ID token must echo it. */
  readonly nonce?: string;
  /** The `max_age` sent, in seconds: the ID token's `auth_time` must satisfy it. */
  readonly maxAge?: number;
}

/**
 * Pending authorization requests, keyed by their `state`. `take` must remove what it returns, so
 * that a callback URL can be used once only.
 */
export interface TransactionStore {
  /** Remembers a transaction under its state. */
  put(state: string, transaction: AuthorizationTransaction): void | Promise<void>;
  /** Returns and forgets the transaction of `state`, or `null` when there is none. */
  take(state: string): AuthorizationTransaction | null | Promise<AuthorizationTransaction | null>;
}

/** Transactions in this realm's memory (the default outside browsers). */
export function memoryTransactionStore(): TransactionStore {
  const pending = new Map<string, AuthorizationTransaction>();
  return {
    put(state, transaction) {
      pending.set(state, transaction);
    },
    take(state) {
      const found = pending.get(state) ?? null;
      pending.delete(state);
      return found;
    },
  };
}

/**
 * Transactions in the browser's `sessionStorage` (the default in browsers): they survive the
 * redirect to the login page and back, and stay within the tab that started the sign-in.
 * @param prefix Key prefix. Default `gatehouse.tx.`.
 * @param storage Storage to use instead of `globalThis.sessionStorage`.
 */
export function sessionStorageTransactionStore(
  prefix = 'gatehouse.tx.',
  storage?: KeyValueStorage,
): TransactionStore {
  const resolve = (): KeyValueStorage => {
    const found = storage ?? (globalThis as { sessionStorage?: KeyValueStorage }).sessionStorage;
    if (!found) throw new TypeError('sessionStorageTransactionStore: no sessionStorage in this environment.');
    return found;
  };
  return {
    put(state, transaction) {
      resolve().setItem(prefix + state, JSON.stringify(transaction));
    },
    take(state) {
      const storageArea = resolve();
      const raw = storageArea.getItem(prefix + state);
      storageArea.removeItem(prefix + state);
      if (raw === null) return null;
      try {
        const value = JSON.parse(raw) as Partial<AuthorizationTransaction>;
        if (typeof value.codeVerifier !== 'string' || typeof value.redirectUri !== 'string') return null;
        return {
          codeVerifier: value.codeVerifier,
          redirectUri: value.redirectUri,
          createdAt: Number(value.createdAt),
          ...(typeof value.nonce === 'string' ? { nonce: value.nonce } : {}),
          ...(typeof value.maxAge === 'number' ? { maxAge: value.maxAge } : {}),
        };
      } catch {
        return null;
      }
    },
  };
}
