/**
 * The storage contract between Gatehouse and a host.
 *
 * Every time is an epoch timestamp in **milliseconds**, taken from the instance clock and passed in
 * by Gatehouse (`now`), so that engines never read their own clock for protocol decisions and tests
 * can move time without sleeping. Engines must treat a record whose `expiresAt <= now` as absent.
 *
 * Secrets (codes, refresh tokens, session ids) never reach a store: only their SHA-256 hashes
 * (base64url, see `hashSecret`) do, so a leaked database does not leak credentials.
 *
 * Any method may throw (or reject) when the engine is unavailable; Gatehouse answers such a request
 * with 503 `temporarily_unavailable`. A method that throws must not have written anything.
 */

/** A registered OAuth 2.0 client (RFC 6749 §2). */
export interface ClientRecord {
  /** The `client_id`. */
  readonly id: string;
  /** Human-readable name, shown on the consent page. Defaults to the id. */
  readonly name?: string;
  /**
   * `confidential` clients authenticate with a secret (RFC 6749 §2.1);
   * `public` clients cannot keep one and must use PKCE S256.
   */
  readonly type: 'confidential' | 'public';
  /**
   * SHA-256 hash of the client secret, as produced by `hashClientSecret(secret)`. Required for
   * confidential clients. A fast hash is appropriate because client secrets are high-entropy
   * random strings (generate them with `generateClientSecret()`), never human-chosen passwords.
   */
  readonly secretHash?: string;
  /** Registered redirect URIs, compared by exact string equality (RFC 9700 §4.1.3). */
  readonly redirectUris: readonly string[];
  /** Grant types the client may use. Defaults to `['authorization_code', 'refresh_token']`. */
  readonly grantTypes?: readonly ('authorization_code' | 'refresh_token')[];
  /** Scopes the client may request. When absent, any scope the instance supports. */
  readonly scopes?: readonly string[];
  /** Browser origins (e.g. `https://app.example.com`) allowed for CORS with credentials. */
  readonly allowedOrigins?: readonly string[];
  /** First-party clients skip the consent page. */
  readonly firstParty?: boolean;
}

/** Looks up clients. Read-only from Gatehouse's point of view. */
export interface ClientStore {
  /** The client with this id, or `null`. */
  findClient(clientId: string): Promise<ClientRecord | null>;
  /**
   * Optional: whether some client registered this browser origin in its `allowedOrigins`, compared
   * by exact string equality (e.g. `https://app.example.com`, no trailing slash). Gatehouse asks it
   * (on CORS requests and session-authenticated API calls) only for origins that are neither the
   * issuer's nor in `cors.allowedOrigins`, and caches nothing, so changes apply on the next request.
   * Without it, client registrations add no allowed origins.
   */
  isOriginAllowed?(origin: string): Promise<boolean>;
}

/** A user as Gatehouse sees it. */
export interface UserRecord {
  /** Stable, unique, never reassigned identifier: the `sub` claim. */
  readonly id: string;
  /** Login name, for display. */
  readonly username?: string;
  /** Extra claims returned by userinfo (e.g. `name`, `email`). Must not contain `sub`. */
  readonly claims?: Readonly<Record<string, unknown>>;
}

/** The host's users. Password verification is the host's responsibility. */
export interface UserStore {
  /**
   * The user whose credentials these are, or `null`. Must take comparable time whether the username
   * exists or not (verify against a dummy hash for unknown users) so that timing does not reveal
   * which usernames exist.
   */
  verifyPassword(username: string, password: string): Promise<UserRecord | null>;
  /** The user with this id, or `null` (a deleted user's tokens and sessions stop working). */
  findUser(userId: string): Promise<UserRecord | null>;
}

/** An authorization code (RFC 6749 §4.1.2), stored by hash until it expires. */
export interface AuthorizationCodeRecord {
  /** `hashSecret(code)`. */
  readonly codeHash: string;
  readonly clientId: string;
  readonly userId: string;
  /** The grant this code starts: every token issued from it carries this id. */
  readonly grantId: string;
  /**
   * The `redirect_uri` of the authorization request, exactly as sent (RFC 6749 §4.1.3), or `''`
   * when the request omitted it (the client's only registered URI was used). Store `''` as is.
   */
  readonly redirectUri: string;
  /** Space-separated granted scope (may be empty). */
  readonly scope: string;
  /** PKCE S256 challenge (RFC 7636 §4.2), when the client sent one. */
  readonly codeChallenge?: string;
  /** When the user authenticated (epoch ms). */
  readonly authTime: number;
  /**
   * Until when the record is kept (epoch ms). For an unconsumed code, its end of validity; once
   * redeemed, the store extends it to the caller's `keepUntil` (see {@link GrantStore.redeemCode}).
   */
  readonly expiresAt: number;
  /** Set by the store when the code is redeemed; a record with it set is a replay target. */
  readonly consumedAt?: number;
}

/** A refresh token, stored by hash until it expires. */
export interface RefreshTokenRecord {
  /** `hashSecret(refreshToken)`. */
  readonly tokenHash: string;
  readonly grantId: string;
  readonly clientId: string;
  readonly userId: string;
  readonly scope: string;
  readonly issuedAt: number;
  readonly expiresAt: number;
  /** Set by the store when the token was rotated; presenting it again is reuse (RFC 9700 §4.14.2). */
  readonly rotatedAt?: number;
}

/** Outcome of {@link GrantStore.redeemCode}. */
export type RedeemCodeResult =
  /** This caller won: the code is now consumed and `refreshToken` (if any) stored. */
  | { readonly status: 'redeemed'; readonly code: AuthorizationCodeRecord }
  /** The code had already been consumed: a replay (RFC 6749 §4.1.2). Nothing was written. */
  | { readonly status: 'replayed'; readonly code: AuthorizationCodeRecord }
  /** Unknown or expired code. Nothing was written. */
  | { readonly status: 'invalid' };

/** Outcome of {@link GrantStore.rotateRefreshToken}. */
export type RotateRefreshTokenResult =
  /** This caller won: the old token is marked rotated and the new one stored. */
  | { readonly status: 'rotated'; readonly previous: RefreshTokenRecord }
  /** The token had already been rotated: reuse. Nothing was written. */
  | { readonly status: 'reused'; readonly previous: RefreshTokenRecord }
  /** Unknown, expired or revoked token. Nothing was written. */
  | { readonly status: 'invalid' };

/**
 * Codes, refresh tokens and revocations. The two atomic operations are the heart of the contract:
 * an engine must guarantee that, among any number of concurrent callers (in any number of
 * processes), at most one gets `redeemed` for a code and at most one gets `rotated` for a refresh
 * token, and that each writes all or nothing.
 */
export interface GrantStore {
  /** Stores a new code. */
  saveCode(record: AuthorizationCodeRecord): Promise<void>;
  /**
   * The code record (consumed or not) if it exists, `expiresAt > now` and its grant is not revoked;
   * never consumes. For a consumed code `expiresAt` is the extended one set by {@link redeemCode}.
   */
  findCode(codeHash: string, now: number): Promise<AuthorizationCodeRecord | null>;
  /**
   * Atomically consumes an unexpired (`expiresAt > now`), unconsumed code of a grant that is not
   * revoked and, in the same step, stores `refreshToken` when given. At most one caller ever gets
   * `redeemed`; a code of a revoked grant is `invalid`.
   *
   * On success the engine sets `consumedAt = now` and sets the record's `expiresAt` to
   * `max(expiresAt, keepUntil)` (it never shortens it), keeping the consumed record until then so
   * that a replay is recognised (and its grant revoked, RFC 6749 §4.1.2) long after the code itself
   * would have expired: Gatehouse passes `now` + the longest lifetime of anything the grant issues.
   * The `redeemed` result, and {@link findCode} / `replayed` results afterwards, carry the consumed
   * record with that extended `expiresAt`. Unconsumed codes still expire at their original
   * `expiresAt`; a failed or losing call writes nothing.
   *
   * @param keepUntil Epoch ms, at least the code's `expiresAt`: how long to keep the consumed record.
   */
  redeemCode(
    codeHash: string,
    refreshToken: RefreshTokenRecord | null,
    now: number,
    keepUntil: number,
  ): Promise<RedeemCodeResult>;

  /** Stores a refresh token (used when refresh rotation is off, and by tests). */
  saveRefreshToken(record: RefreshTokenRecord): Promise<void>;
  /** The refresh token record (rotated or not) if it exists, has not expired and its grant is not revoked. */
  findRefreshToken(tokenHash: string, now: number): Promise<RefreshTokenRecord | null>;
  /**
   * Atomically marks an active (unexpired, not rotated, grant not revoked) refresh token as rotated
   * (`rotatedAt = now`, kept until it expires for reuse detection) and stores `next`. At most one
   * caller gets `rotated`; a caller presenting an already rotated token gets `reused`.
   */
  rotateRefreshToken(
    tokenHash: string,
    next: RefreshTokenRecord,
    now: number,
  ): Promise<RotateRefreshTokenResult>;

  /**
   * Revokes a whole grant: its refresh tokens and codes stop working, and {@link isRevoked} reports
   * `true` for any access token carrying this grant id, until `expiresAt` (the latest expiry of
   * anything the grant issued). Idempotent.
   */
  revokeGrant(grantId: string, expiresAt: number): Promise<void>;
  /** Revokes one access token by its `jti` until `expiresAt` (its `exp`). Idempotent. */
  revokeAccessToken(jti: string, expiresAt: number): Promise<void>;
  /**
   * `true` when the access token `jti` was revoked, or its grant was. On the path of every bearer
   * request: engines should answer it in a single round trip. Gatehouse's in-process memory engine
   * returns the boolean itself rather than a promise, so that the bearer check of a token seen
   * before completes without waiting a turn of the event loop. (Stores a host supplies are called
   * through a guard that turns failures and timeouts into 503 answers; their answers are awaited.)
   */
  isRevoked(jti: string, grantId: string | undefined, now: number): boolean | Promise<boolean>;
}

/** A browser session (the session cookie's server side). */
export interface SessionRecord {
  /** `hashSecret(sessionId)`. */
  readonly idHash: string;
  readonly userId: string;
  /** When the user logged in. */
  readonly createdAt: number;
  /** Last request seen; the idle timeout counts from here. */
  readonly lastSeenAt: number;
  /** Absolute end of the session, whatever the activity. */
  readonly expiresAt: number;
}

/** Server-side sessions. */
export interface SessionStore {
  createSession(record: SessionRecord): Promise<void>;
  /** The session if it exists and `expiresAt > now` (the idle timeout is Gatehouse's check). */
  findSession(idHash: string, now: number): Promise<SessionRecord | null>;
  /** Records activity (sliding idle timeout). A missing session is ignored. */
  touchSession(idHash: string, lastSeenAt: number): Promise<void>;
  /** Removes a session. Idempotent. */
  deleteSession(idHash: string): Promise<void>;
}

/** A remembered consent: this user allowed this client these scopes. */
export interface ConsentRecord {
  readonly userId: string;
  readonly clientId: string;
  /** Space-separated scopes granted so far. */
  readonly scope: string;
  readonly expiresAt: number;
}

/** Remembered consents, so that the consent page is shown once per user, client and scope. */
export interface ConsentStore {
  findConsent(userId: string, clientId: string, now: number): Promise<ConsentRecord | null>;
  /** Stores or replaces the consent of this user for this client. */
  saveConsent(record: ConsentRecord): Promise<void>;
}

/** A fixed-window counter. */
export interface RateLimitWindow {
  readonly count: number;
  /** When the window ends and the counter starts again from zero. */
  readonly resetAt: number;
}

/** Counters for failed password attempts (and anything else worth limiting). */
export interface RateLimitStore {
  /** The current window of `key`, or `null` when there is none or it has ended. */
  get(key: string, now: number): Promise<RateLimitWindow | null>;
  /**
   * Atomically adds one to `key`, starting a new window of `windowMs` when there is none or it has
   * ended, and returns the window after the increment.
   */
  increment(key: string, windowMs: number, now: number): Promise<RateLimitWindow>;
  /** Forgets `key` (e.g. after a successful login). Idempotent. */
  reset(key: string): Promise<void>;
}

/** The state Gatehouse keeps itself; all default to the in-memory engines. */
export interface GatehouseStorage {
  readonly grants: GrantStore;
  readonly sessions: SessionStore;
  readonly consents: ConsentStore;
  readonly rateLimits: RateLimitStore;
}
