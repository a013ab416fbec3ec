/** The tokens a client holds. */
export interface TokenSet {
  /** The bearer access token. */
  readonly accessToken: string;
  /**
   * Which endpoint issued the set, hence where it is revoked: `oauth2` (the token endpoint; revoked
   * at the RFC 7009 endpoint) or `auth_api` (`loginWithPassword`; revoked at the Auth API's own
   * revocation endpoint, which is the only one that revokes Auth API tokens). Absent = `oauth2`
   * (sets stored before this field existed).
   */
  readonly family?: 'oauth2' | 'auth_api';
  /** `DPoP` for a DPoP-bound access token (RFC 9449); absent for a bearer token. */
  readonly tokenType?: 'DPoP';
  /** The refresh token, when the server issued one (OAuth2 family only). */
  readonly refreshToken?: string;
  /** When the access token expires, in Unix seconds. */
  readonly expiresAt: number;
  /** The granted scope, when the server reported it. */
  readonly scope?: string;
  /**
   * The access token's lifetime in seconds (the token response's `expires_in`), recorded when the
   * set is stored. Caps the refresh skew at half of it, so a short-lived token is not refreshed
   * before every request. Optional: sets without it use the configured skew as it is.
   */
  readonly lifetime?: number;
  /**
   * The ID token of an OpenID Connect sign-in (scope `openid`), validated on receipt; kept across
   * refreshes that issue none. `signOut()` sends it as `id_token_hint`.
   */
  readonly idToken?: string;
  /**
   * The claims of {@link idToken}: who signed in (`sub`), when (`auth_time`), and the profile the
   * granted scopes release (`name`, `email`, …).
   */
  readonly claims?: Readonly<Record<string, unknown>>;
}

/**
 * Where a client keeps its {@link TokenSet}. Either method may be sync or async. `get()` returns
 * the set or `null`; `set(null)` clears it. A store shared between clients (or tabs) is what lets
 * a refresh done by one be seen by the others.
 */
export interface TokenStore {
  /** The current token set, or `null` when there is none. */
  get(): TokenSet | null | Promise<TokenSet | null>;
  /** Replaces the token set; `null` clears it. */
  set(tokens: TokenSet | null): void | Promise<void>;
}

/** A store that lives in this JavaScript realm only (the default; tokens die with the page or process). */
export function memoryTokenStore(initial: TokenSet | null = null): TokenStore {
  let current = initial;
  return {
    get: () => current,
    set(tokens) {
      current = tokens;
    },
  };
}

/** The part of the Web Storage API that {@link localStorageTokenStore} needs. */
export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/**
 * A store in the browser's `localStorage`, shared by every tab of the origin. Tokens there are
 * readable by any script on the origin (XSS), so prefer {@link memoryTokenStore} or session mode
 * when the page cannot rule that out. A stored value that is not a token set reads as `null`.
 * @param key Storage key. Default `gatehouse.tokens`.
 * @param storage Storage to use instead of `globalThis.localStorage` (tests, other Web Storage).
 */
export function localStorageTokenStore(key = 'gatehouse.tokens', storage?: KeyValueStorage): TokenStore {
  const resolve = (): KeyValueStorage => {
    const found = storage ?? (globalThis as { localStorage?: KeyValueStorage }).localStorage;
    if (!found) throw new TypeError('localStorageTokenStore: no localStorage in this environment.');
    return found;
  };
  return {
    get() {
      const raw = resolve().getItem(key);
      if (raw === null) return null;
      try {
        return parseTokenSet(JSON.parse(raw));
      } catch {
        return null;
      }
    },
    set(tokens) {
      if (tokens === null) resolve().removeItem(key);
      else resolve().setItem(key, JSON.stringify(tokens));
    },
  };
}

/** `value` as a {@link TokenSet}, or `null` when it does not have the shape of one. */
export function parseTokenSet(value: unknown): TokenSet | null {
  if (typeof value !== 'object' || value === null) return null;
  const { accessToken, tokenType, refreshToken, expiresAt, scope, lifetime, idToken, claims } =
    value as Record<string, unknown>;
  if (typeof accessToken !== 'string' || accessToken === '') return null;
  if (typeof expiresAt !== 'number' || !Number.isFinite(expiresAt)) return null;
  if (refreshToken !== undefined && typeof refreshToken !== 'string') return null;
  if (scope !== undefined && typeof scope !== 'string') return null;
  const usableLifetime = typeof lifetime === 'number' && Number.isFinite(lifetime) && lifetime >= 0;
  return {
    accessToken,
    ...(tokenType === 'DPoP' ? { tokenType } : {}),
    expiresAt,
    ...(refreshToken === undefined ? {} : { refreshToken }),
    ...(scope === undefined ? {} : { scope }),
    // An unusable lifetime only loses the skew cap; the tokens themselves are still good.
    ...(usableLifetime ? { lifetime } : {}),
    ...(typeof idToken === 'string' && typeof claims === 'object' && claims !== null
      ? { idToken, claims: claims as Record<string, unknown> }
      : {}),
  };
}
