/**
 * The storage contract between Gatehouse and a host, version 3.
 *
 * **Instances.** Every record belongs to one Gatehouse instance (one issuer). An engine shared by
 * many instances ({@link StorageEngine}) hands out one {@link GatehouseStorage} view per stable
 * instance id, and keeps the instances apart by construction: the instance id is part of every key
 * (Redis) or primary key (SQL) the view reads or writes, so no lookup of one instance can see a
 * code, token, revocation, session, consent, rate-limit window, registered client or replay id of
 * another, even when their client ids and user ids coincide.
 *
 * **Time.** Every time is an epoch timestamp in **milliseconds** ({@link EpochMs}), taken from the
 * instance clock and passed in by Gatehouse (`now`), so that engines never read their own clock for
 * protocol decisions and tests can move time without sleeping. Engines must treat a record whose
 * `expiresAt <= now` as absent. Engines that store integers round with `wholeInstant` /
 * `wholeExpiry` (instants down, expiries up).
 *
 * **Secrets** (codes, refresh tokens, session ids) never reach a store: only their SHA-256 hashes
 * (base64url, see `hashSecret`) do, so a leaked database does not leak credentials.
 *
 * **Open records.** Grant types are open strings; a token's subject is a user or a client
 * ({@link Subject}); optional fields (audience, OpenID Connect's nonce, auth time, session id, acr,
 * amr) and the `ext` extension field must be stored losslessly (engines keep them in one JSON
 * value), so later features add fields without a storage migration.
 *
 * Any method may throw (or reject) when the engine is unavailable; Gatehouse answers such a request
 * with 503 `temporarily_unavailable`. A method that throws must not have written anything.
 */

import type { EpochMs } from '../time.js';

/**
 * Who a token speaks for (RFC 9068 §2.2 `sub`): a user who authorized a client, or a client acting
 * for itself (the client credentials grant, RFC 6749 §4.4), whose `sub` is its client id.
 */
export type Subject =
  | { readonly kind: 'user'; readonly userId: string }
  | { readonly kind: 'client'; readonly clientId: string };

/**
 * A grant type (RFC 6749 §4, or an extension grant's absolute URI, §4.5). Open: the ones Gatehouse
 * serves are named for completion, any other string is allowed.
 */
export type GrantType =
  | 'authorization_code'
  | 'refresh_token'
  | 'client_credentials'
  /** RFC 8628 §3.4: the device authorization grant. */
  | 'urn:ietf:params:oauth:grant-type:device_code'
  /** CIBA Core 1.0 §10.1: backchannel authentication. */
  | 'urn:openid:params:grant-type:ciba'
  | (string & {});

/** Extension attributes of a record: JSON values, stored and returned as given. */
export type RecordExtensions = Readonly<Record<string, unknown>>;

/**
 * OpenID Connect attributes of an authentication (OpenID Connect Core 1.0 §2, §3.1.2.1), carried from
 * the session to the code and from the code to its refresh tokens. All optional.
 */
export interface AuthenticationAttributes {
  /** The `nonce` of the authentication request, echoed in the first ID token only. */
  readonly nonce?: string;
  /** Public id of the browser session the grant started from (`sid`, OIDC Front/Back-Channel Logout). */
  readonly sessionId?: string;
  /** Authentication context class reference (`acr`). */
  readonly acr?: string;
  /** Authentication methods references (`amr`, RFC 8176). */
  readonly amr?: readonly string[];
}

/**
 * Client authentication methods of the IANA "OAuth Token Endpoint Authentication Methods"
 * registry (RFC 7591 §4.2, RFC 8705 §2). Which of them a Gatehouse instance accepts is its table
 * in `oauth2/client-auth/methods.ts`.
 */
export type TokenEndpointAuthMethod =
  | 'none'
  | 'client_secret_basic'
  | 'client_secret_post'
  | 'client_secret_jwt'
  | 'private_key_jwt'
  | 'tls_client_auth'
  | 'self_signed_tls_client_auth';

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
  /**
   * How the client authenticates at the token, revocation and introspection endpoints (RFC 7591
   * §2 `token_endpoint_auth_method`). Defaults to `client_secret_basic` for confidential clients
   * and `none` for public ones. A request using another method than the registered one is refused
   * (401 `invalid_client`), as is a method this server does not offer (see the metadata's
   * `token_endpoint_auth_methods_supported`).
   */
  readonly tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
  /**
   * The client's public keys (a JWK Set, RFC 7517 §5), for `private_key_jwt` (RFC 7591 §2 `jwks`).
   * Public asymmetric keys only. Give either this or {@link jwksUri}.
   */
  readonly jwks?: { readonly keys: readonly Readonly<Record<string, unknown>>[] };
  /**
   * Where the client publishes its public keys (RFC 7591 §2 `jwks_uri`), for `private_key_jwt`:
   * fetched under the instance's `clientJwks` policy (https, public hosts, timeout, size cap) and
   * cached. Lets the client rotate keys without a new registration.
   */
  readonly jwksUri?: string;
  /** Registered redirect URIs, compared by exact string equality (RFC 9700 §4.1.3). */
  readonly redirectUris: readonly string[];
  /**
   * Grant types the client may use. Defaults to `['authorization_code', 'refresh_token']`; a
   * service acting for itself registers `['client_credentials']` (RFC 6749 §4.4, confidential
   * clients only).
   */
  readonly grantTypes?: readonly GrantType[];
  /** Scopes the client may request. When absent, any scope the instance supports. */
  readonly scopes?: readonly string[];
  /**
   * Resources (RFC 8707 `resource`, e.g. `https://example.com/mcp`) the client may request tokens
   * for; each must also be one the instance knows (its `resources` option or its audience). When
   * absent, any resource the instance knows.
   */
  readonly resources?: readonly string[];
  /**
   * The resources this client serves as a resource server (e.g. `https://api.example.com`): at the
   * introspection endpoint it may ask about any access token whose `aud` names one of them,
   * whoever the token was issued to (RFC 7662 §4: the server answers whether the token may be used
   * at the protected resource making the call). Without it, a client introspects only its own
   * tokens. Confidential clients only (introspection needs a client that proves its identity).
   */
  readonly introspects?: readonly string[];
  /**
   * New `private_key_jwt` assertions (distinct `jti`) this client may present per replay window
   * (from its first assertion until that one expires: about 65 s for 60 s assertions), each
   * remembered until it expires; past it, its assertions are refused (401 `invalid_client`)
   * until the window ends, other clients are not affected. A whole number from 1 to 1,000,000.
   * Default: 30,000 for a client with `introspects` (a resource server signs one assertion per
   * introspection it makes), else the replay store's (`kvReplayStore`'s `maxIdsPerPartition`,
   * 1,000). Self-registered clients always have the store's.
   */
  readonly maxAssertionsPerWindow?: number;
  /** Browser origins (e.g. `https://app.example.com`) allowed for CORS with credentials. */
  readonly allowedOrigins?: readonly string[];
  /** First-party clients skip the consent page. */
  readonly firstParty?: boolean;
  /**
   * The JWS algorithm of the client's ID tokens (OpenID Connect Registration §2
   * `id_token_signed_response_alg`); the instance must hold a key of it. Default `RS256`
   * (OpenID Connect Core §3.1.3.7).
   */
  readonly idTokenSignedResponseAlg?: 'RS256' | 'ES256' | 'EdDSA';
  /**
   * Where the browser may be sent after RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0
   * §3 `post_logout_redirect_uris`), compared by exact string equality. None by default: the
   * end-session endpoint then shows its own "signed out" page.
   */
  readonly postLogoutRedirectUris?: readonly string[];
  /**
   * The client must push its authorization requests (RFC 9126 §6
   * `require_pushed_authorization_requests`): a plain authorization request of it is refused with
   * `invalid_request`. Default `false`.
   */
  readonly requirePushedAuthorizationRequests?: boolean;
  /**
   * The client's access tokens must be DPoP-bound (RFC 9449 §5.2 `dpop_bound_access_tokens`): a
   * token request of it without a DPoP proof is refused with `invalid_request`. Default `false`.
   */
  readonly dpopBoundAccessTokens?: boolean;
  /**
   * Where the client is told that a session it took part in ended (OpenID Connect Back-Channel
   * Logout 1.0 §2.2 `backchannel_logout_uri`): an absolute https URI (or `http://` to a loopback
   * host), no fragment. Used when the instance's `backchannelLogout` option is on: it POSTs a
   * signed logout token there.
   */
  readonly backchannelLogoutUri?: string;
  /**
   * The client needs the `sid` claim in its logout tokens (Back-Channel Logout 1.0 §2.2
   * `backchannel_logout_session_required`). Gatehouse always sends it for a session that has one.
   * Default `false`.
   */
  readonly backchannelLogoutSessionRequired?: boolean;
  /**
   * How the client gets the tokens of a backchannel authentication (CIBA Core 1.0 §4
   * `backchannel_token_delivery_mode`): `poll` (it polls the token endpoint) or `ping` (it is told
   * at {@link backchannelClientNotificationEndpoint}, then calls the token endpoint). Needed with
   * the `urn:openid:params:grant-type:ciba` grant type.
   */
  readonly backchannelTokenDeliveryMode?: 'poll' | 'ping';
  /**
   * Where a `ping` client is told that a backchannel authentication finished (CIBA §4
   * `backchannel_client_notification_endpoint`): an https URL, called through the guarded fetch.
   */
  readonly backchannelClientNotificationEndpoint?: string;
  /**
   * The RFC 9396 authorization detail types the client may ask for (RFC 9396 §10
   * `authorization_details_types`), each one of the instance's `authorizationDetails.types`. When
   * absent, any type the instance accepts.
   */
  readonly authorizationDetailsTypes?: readonly string[];
  /**
   * The client's authorization requests must be signed request objects (RFC 9101 §10.5
   * `require_signed_request_object`): sent by value as `request`, directly or pushed; a plain one
   * is refused with `invalid_request`. Default `false`.
   */
  readonly requireSignedRequestObject?: boolean;
  /**
   * The algorithm the client signs its request objects with (OpenID Connect Registration §2
   * `request_object_signing_alg`): an object signed otherwise is refused. `none` lets the client
   * send unsigned objects, and only where the instance allows them (`requestObjects.allowUnsigned`).
   * When absent, any asymmetric algorithm of `request_object_signing_alg_values_supported`.
   */
  readonly requestObjectSigningAlg?: RequestObjectSigningAlgorithm;
}

/**
 * The algorithms request objects may be signed with (RFC 9101 §10.5
 * `request_object_signing_alg_values_supported`): asymmetric ones, and `none` for a client
 * registered for unsigned objects where the instance allows them.
 */
export type RequestObjectSigningAlgorithm =
  | 'ES256'
  | 'ES384'
  | 'ES512'
  | 'EdDSA'
  | 'PS256'
  | 'PS384'
  | 'PS512'
  | 'RS256'
  | 'RS384'
  | 'RS512'
  | 'none';

/**
 * Looks up the host's clients. Read-only from Gatehouse's point of view; clients Gatehouse registers
 * itself live in the instance's {@link ClientRegistry}, consulted after this store.
 */
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

/** A client registered with the instance itself (RFC 7591 registration, client ID metadata documents). */
export interface RegisteredClient {
  /** The client's registration, as {@link ClientStore.findClient} would return it. */
  readonly client: ClientRecord;
  /** When it was registered (or last replaced). */
  readonly registeredAt: EpochMs;
  /**
   * When the registration lapses (e.g. a fetched metadata document's cache lifetime); absent: it
   * is kept until deleted.
   */
  readonly expiresAt?: EpochMs;
  /** Registration metadata Gatehouse does not interpret (RFC 7591 §2), kept as given. */
  readonly ext?: RecordExtensions;
  /**
   * When the registration was last used ({@link ClientRegistry.touchClient} records its `now`);
   * absent: never used since it was saved. A full registry evicts never-used registrations first.
   */
  readonly usedAt?: EpochMs;
}

/** Bounds of {@link ClientRegistry.saveClient} (`dynamicRegistration`). */
export interface ClientRegistryLimits {
  /** Most live registrations of the instance. */
  readonly maxClients?: number;
  /**
   * Who pays for the registration (fair shares, issue 41): the registering request's client
   * network (`net:<digest of its /24 or /48>`). The registry records it with the registration; a
   * full registry makes room from the partition holding the most live registrations. Absent: the
   * registration belongs to no partition and is never evicted.
   */
  readonly partition?: string;
}

/** What {@link ClientRegistry.saveClient} did beside storing the registration. */
export interface SavedClient {
  /** The client id of the registration deleted to make room (fair eviction), if any. */
  readonly evictedClientId?: string;
}

/**
 * The instance's writable client registry, beside the host's {@link ClientStore} (which wins when
 * both know a client id). Registered clients add no CORS origins: a client that registered itself
 * must not gain credentialed cross-origin access by doing so.
 */
export interface ClientRegistry {
  /**
   * Stores or replaces the registration of `record.client.id`, recording `limits.partition` as
   * who pays for it (a replacement takes the partition given now). With `limits.maxClients`, a
   * new registration (not a replacement) arriving while the instance holds that many live ones
   * is fair-shared, atomically (one step with the write):
   *
   * - when its partition (absent: the partition of unpartitioned registrations) holds at least
   *   as many live registrations as the heaviest partition, it is over its share: the engine
   *   throws `StoreFullError` and writes nothing (answered 503 with `Retry-After`);
   * - else the heaviest partition's oldest (by `registeredAt`) never-used registration (no
   *   `usedAt`), or when it has none its oldest, is deleted, and the new one is stored. Its id
   *   comes back as `evictedClientId`. Registrations without a partition are never evicted and
   *   never the heaviest.
   *
   * Concurrent saves may overshoot the cap by the number in flight, never more.
   */
  saveClient(record: RegisteredClient, limits?: ClientRegistryLimits): Promise<SavedClient>;
  /** The registration if it exists and has not lapsed (`expiresAt > now`), else `null`. */
  findClient(clientId: string, now: EpochMs): Promise<RegisteredClient | null>;
  /**
   * Records a use of a live registration: moves its expiry (`undefined`: keep until deleted) and
   * sets its `usedAt` to `now`. Returns whether a live registration was there; a missing or
   * lapsed one stays missing.
   */
  touchClient(clientId: string, expiresAt: EpochMs | undefined, now: EpochMs): Promise<boolean>;
  /** Removes a registration. Idempotent. */
  deleteClient(clientId: string): Promise<void>;
  /**
   * Optional: the live registrations (not lapsed at `now`), newest first (by `registeredAt`), at
   * most `limit` of them: what the admin API lists as self-registered clients. Without it the
   * admin API lists none (the memory, Redis and PostgreSQL engines have it).
   */
  listClients?(now: EpochMs, limit: number): Promise<readonly RegisteredClient[]>;
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

/**
 * The host's users as Gatehouse looks them up: enough for a host that signs users in itself
 * (`interactions.url`) with the Auth API off. See {@link UserStore} for the password check.
 */
export interface UserLookup {
  /**
   * The user with this id, or `null`. Gatehouse asks it on introspection, userinfo, refresh and
   * session use, so a deleted user's sessions and refresh tokens stop working, and introspection
   * reports their tokens inactive, at once. The bearer check of REST operations does not ask it (it
   * is the hot path): delete users through `gatehouse.deleteUser(userId, remove)` (or call
   * `gatehouse.revokeUser(userId)` when deleting one) so that their access tokens stop working
   * there too (see docs/users.md).
   */
  findUser(userId: string): Promise<UserRecord | null>;
}

/** The host's users. Password verification is the host's responsibility. */
export interface UserStore extends UserLookup {
  /**
   * The user whose credentials these are, or `null`. Must take comparable time whether the username
   * exists or not (verify against a dummy hash for unknown users) so that timing does not reveal
   * which usernames exist. Needed by the built-in login page and the Auth API only.
   */
  verifyPassword(username: string, password: string): Promise<UserRecord | null>;
}

/** An authorization code (RFC 6749 §4.1.2), stored by hash until it expires. */
export interface AuthorizationCodeRecord extends AuthenticationAttributes {
  /** `hashSecret(code)`. */
  readonly codeHash: string;
  readonly clientId: string;
  /** The user who authorized the client (a code always has one). */
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
  /**
   * The resources (RFC 8707 `resource`) the grant's access tokens are for, their `aud`. Absent: the
   * instance's configured `audience`.
   */
  readonly audience?: readonly string[];
  /** PKCE S256 challenge (RFC 7636 §4.2), when the client sent one. */
  readonly codeChallenge?: string;
  /** When the user authenticated. */
  readonly authTime: EpochMs;
  /**
   * Until when the record is kept. For an unconsumed code, its end of validity; once redeemed, the
   * store extends it to the caller's `keepUntil` (see {@link GrantStore.redeemCode}).
   */
  readonly expiresAt: EpochMs;
  /** Set by the store when the code is redeemed; a record with it set is a replay target. */
  readonly consumedAt?: EpochMs;
  /** Attributes later features attach, kept as given. */
  readonly ext?: RecordExtensions;
}

/** A refresh token, stored by hash until it expires. */
export interface RefreshTokenRecord extends Omit<AuthenticationAttributes, 'nonce'> {
  /** `hashSecret(refreshToken)`. */
  readonly tokenHash: string;
  readonly grantId: string;
  readonly clientId: string;
  /** Who the grant's tokens speak for. */
  readonly subject: Subject;
  readonly scope: string;
  /** The grant's resources (see {@link AuthorizationCodeRecord.audience}). */
  readonly audience?: readonly string[];
  /**
   * When the user authenticated (OIDC `auth_time` of ID tokens issued on refresh), carried unchanged
   * from the code through every rotation.
   */
  readonly authTime?: EpochMs;
  /**
   * When the grant started (its code was redeemed), carried unchanged through every rotation: the
   * "connected since" of `gatehouse.listGrants`. Absent on tokens issued before it was recorded.
   */
  readonly grantedAt?: EpochMs;
  readonly issuedAt: EpochMs;
  readonly expiresAt: EpochMs;
  /** Set by the store when the token was rotated; presenting it again is reuse (RFC 9700 §4.14.2). */
  readonly rotatedAt?: EpochMs;
  /** Attributes later features attach, kept as given (and carried across rotation by Gatehouse). */
  readonly ext?: RecordExtensions;
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
 * A refresh token that an exchange ({@link GrantStore.exchangeCode},
 * {@link GrantStore.exchangeRefreshToken}) stores: its hash and expiry. Everything else of it comes
 * from the record it is exchanged for, inside the atomic step, so the caller needs no read first.
 */
export interface RefreshTokenMint {
  /** `hashSecret(refreshToken)`. */
  readonly tokenHash: string;
  readonly expiresAt: EpochMs;
  /**
   * The DPoP key (JWK SHA-256 thumbprint) to bind the new token to, as `ext.dpopJkt` (RFC 9449 §5:
   * a public client's refresh tokens are bound to the key of its proof). Absent: a code's refresh
   * token is unbound, a rotated token's successor keeps the binding it had.
   */
  readonly dpopJkt?: string;
}

/**
 * What {@link GrantStore.exchangeCode} checks in its atomic step before it redeems the code (RFC 6749
 * §4.1.3, RFC 7636 §4.6, RFC 9449 §10), in this order: the first that fails is the refusal.
 */
export interface CodeExchange {
  /** The authenticated client: the code's `clientId` must be it (`client`). */
  readonly clientId: string;
  /**
   * The token request's `redirect_uri`, absent when it sent none. A code with a `redirectUri` is
   * redeemed only with exactly that one (`redirect_uri`).
   */
  readonly redirectUri?: string;
  /**
   * Whether the request's `redirect_uri` fits a code whose authorization request named none (stored
   * as `''`): it sent none, or the client's only registered URI. `false` refuses such a code
   * (`redirect_uri`).
   */
  readonly redirectUriFitsDefault: boolean;
  /**
   * BASE64URL(SHA-256(code_verifier)) of the request's verifier (RFC 7636 §4.6), absent when it
   * sent none. Must equal the code's `codeChallenge`: a code without one refuses a verifier
   * (`code_verifier_unexpected`, RFC 9700 §2.1.1: a PKCE downgrade), a code with one refuses its
   * absence (`code_verifier_missing`) and any other value (`code_verifier_mismatch`).
   */
  readonly verifierChallenge?: string;
  /**
   * The JWK thumbprint of the request's DPoP proof, absent without one. A code bound to a key
   * (`ext.dpopJkt`, a string) is redeemed with a proof of that key only (`dpop_key`).
   */
  readonly dpopJkt?: string;
  /**
   * The refresh token to store with the redemption (none for a client without the `refresh_token`
   * grant). It is stored unless the code's scope includes `openid` without `offline_access`
   * (OpenID Connect Core §11), as `refreshTokenFromCode` (`@gatehousejs/core/engine`) builds it: the code's
   * grant, user, scope, resources and authentication, `grantedAt` and `issuedAt` the exchange's
   * `now`, and the code's `ext` without its `dpopJkt`, bound to `dpopJkt` when given.
   */
  readonly refreshToken?: RefreshTokenMint;
  /** How long to keep the consumed code, as {@link GrantStore.redeemCode}'s `keepUntil`. */
  readonly keepUntil: EpochMs;
}

/** Why an exchange refused a code or refresh token it found (see {@link CodeExchange}). Nothing was written. */
export type GrantRefusal =
  | 'client'
  | 'redirect_uri'
  | 'code_verifier_missing'
  | 'code_verifier_mismatch'
  | 'code_verifier_unexpected'
  | 'dpop_key';

/** Outcome of {@link GrantStore.exchangeCode}. */
export type ExchangeCodeResult =
  /**
   * Every check passed and this caller won: the code is consumed, as {@link GrantStore.redeemCode}
   * leaves it, and the refresh token stored when `refreshTokenStored`.
   */
  | {
      readonly status: 'redeemed';
      readonly code: AuthorizationCodeRecord;
      readonly refreshTokenStored: boolean;
    }
  /** Every check passed but the code had been consumed: a replay (RFC 6749 §4.1.2). Nothing was written. */
  | { readonly status: 'replayed'; readonly code: AuthorizationCodeRecord }
  /** A check failed (before replay is considered). Nothing was written. */
  | { readonly status: 'refused'; readonly reason: GrantRefusal }
  /** Unknown, expired or revoked code. Nothing was written. */
  | { readonly status: 'invalid' };

/**
 * What {@link GrantStore.exchangeRefreshToken} checks in its atomic step before it rotates the token
 * (RFC 6749 §6, RFC 9449 §5), in this order, and the token it stores.
 */
export interface RefreshTokenExchange {
  /** The authenticated client: the token's `clientId` must be it (`client`). */
  readonly clientId: string;
  /**
   * The JWK thumbprint of the request's DPoP proof, absent without one. A token bound to a key
   * (`ext.dpopJkt`, a string) is used with a proof of that key only (`dpop_key`).
   */
  readonly dpopJkt?: string;
  /**
   * The successor to store: the rotated token's record with this hash and expiry, `issuedAt` the
   * exchange's `now`, no `rotatedAt`, and `ext.dpopJkt` set to `next.dpopJkt` when given (as
   * `rotatedRefreshToken` builds it).
   */
  readonly next: RefreshTokenMint;
}

/** Outcome of {@link GrantStore.exchangeRefreshToken}. */
export type ExchangeRefreshTokenResult =
  /** Every check passed and this caller won: the token is rotated and its successor stored. */
  | { readonly status: 'rotated'; readonly previous: RefreshTokenRecord }
  /** Every check passed but the token had been rotated: reuse (RFC 9700 §4.14.2). Nothing was written. */
  | { readonly status: 'reused'; readonly previous: RefreshTokenRecord }
  /** A check failed (before reuse is considered). Nothing was written. */
  | { readonly status: 'refused'; readonly reason: GrantRefusal }
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
  findCode(codeHash: string, now: EpochMs): Promise<AuthorizationCodeRecord | null>;
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
   * @param keepUntil At least the code's `expiresAt`: how long to keep the consumed record.
   */
  redeemCode(
    codeHash: string,
    refreshToken: RefreshTokenRecord | null,
    now: EpochMs,
    keepUntil: EpochMs,
  ): Promise<RedeemCodeResult>;

  /** Stores a refresh token (used when refresh rotation is off, and by tests). */
  saveRefreshToken(record: RefreshTokenRecord): Promise<void>;
  /** The refresh token record (rotated or not) if it exists, has not expired and its grant is not revoked. */
  findRefreshToken(tokenHash: string, now: EpochMs): Promise<RefreshTokenRecord | null>;
  /**
   * Atomically marks an active (unexpired, not rotated, grant not revoked) refresh token as rotated
   * (`rotatedAt = now`, kept until it expires for reuse detection) and stores `next`. At most one
   * caller gets `rotated`; a caller presenting an already rotated token gets `reused`. `next`
   * belongs to the same grant as the token it replaces.
   */
  rotateRefreshToken(
    tokenHash: string,
    next: RefreshTokenRecord,
    now: EpochMs,
  ): Promise<RotateRefreshTokenResult>;

  /**
   * Optional, with {@link exchangeRefreshToken}: the token endpoint's code redemption in one round
   * trip. In one atomic step, like {@link redeemCode}: finds the code (unexpired, grant not revoked,
   * not covered by its user's mark), makes the checks of {@link CodeExchange} (`refused` with the
   * first that fails), reports a consumed code as `replayed`, and otherwise consumes it and stores
   * the refresh token it derives from the code. At most one caller ever gets `redeemed`.
   *
   * Without it, Gatehouse does the same in two calls ({@link findCode}, then {@link redeemCode}, as
   * `exchangeCodeByLookup` of `@gatehousejs/core/engine`), which the atomic `redeemCode` keeps
   * correct under concurrency: the one-step form saves a round trip per grant.
   */
  exchangeCode?(codeHash: string, exchange: CodeExchange, now: EpochMs): Promise<ExchangeCodeResult>;
  /**
   * Optional, with {@link exchangeCode}: the token endpoint's refresh in one round trip. In one
   * atomic step, like {@link rotateRefreshToken}: finds the token (unexpired, grant not revoked, not
   * covered by its user's mark), makes the checks of {@link RefreshTokenExchange} (`refused` with
   * the first that fails), reports a rotated token as `reused`, and otherwise rotates it and stores
   * its successor. At most one caller gets `rotated`.
   *
   * Without it, Gatehouse calls {@link findRefreshToken}, then {@link rotateRefreshToken}
   * (`exchangeRefreshTokenByLookup`).
   */
  exchangeRefreshToken?(
    tokenHash: string,
    exchange: RefreshTokenExchange,
    now: EpochMs,
  ): Promise<ExchangeRefreshTokenResult>;

  /**
   * Revokes a whole grant: its refresh tokens and codes stop working, and {@link isRevoked} reports
   * `true` for any access token carrying this grant id, until `expiresAt` (the latest expiry of
   * anything the grant issued). Idempotent; never shortens an earlier revocation.
   */
  revokeGrant(grantId: string, expiresAt: EpochMs): Promise<void>;
  /** Revokes one access token by its `jti` until `expiresAt` (its `exp`). Idempotent. */
  revokeAccessToken(jti: string, expiresAt: EpochMs): Promise<void>;
  /**
   * `true` when the access token `jti` was revoked, or its grant was, or (engines with
   * {@link revokeSubject}) its user was revoked at or after the token's issue time: a mark in force
   * for `userId` whose `at >= issuedAt`. On the path of every bearer request: engines should answer
   * it in a single round trip, the user's mark included. Gatehouse's in-process memory engine
   * returns the boolean itself rather than a promise, so that the bearer check of a token seen
   * before completes without waiting a turn of the event loop. (Stores a host supplies are called
   * through a guard that turns failures and timeouts into 503 answers; their answers are awaited.)
   *
   * @param userId The token's `sub`. Gatehouse always passes it; engines without
   *   {@link revokeSubject} ignore it.
   * @param issuedAt The token's `iat` in epoch ms (whole seconds × 1000: the start of the second the
   *   token was issued in, so the comparison errs towards revoking).
   */
  isRevoked(
    jti: string,
    grantId: string | undefined,
    now: EpochMs,
    userId?: string,
    issuedAt?: EpochMs,
  ): boolean | Promise<boolean>;

  /**
   * Optional (required by `gatehouse.revokeUser`): marks everything issued to `userId` at or before
   * `at` as revoked, until `expiresAt` (the longest lifetime of anything Gatehouse issues, counted
   * from `at`). While the mark is in force:
   *
   * - {@link isRevoked} is `true` for the user's access tokens with `issuedAt <= at`;
   * - {@link findRefreshToken} and {@link rotateRefreshToken} treat the user's refresh tokens with
   *   `issuedAt <= at` as revoked (absent / `invalid`), in the same atomic step as the rotation;
   * - {@link findCode} and {@link redeemCode} treat the user's codes with `authTime <= at` as
   *   revoked (absent / `invalid`), in the same atomic step as the redemption;
   * - {@link subjectRevokedAt} answers `at` (Gatehouse ends the user's sessions created at or
   *   before it).
   *
   * A later call keeps the later `at` and the later `expiresAt` (a mark never moves back nor
   * shortens). Things issued after `at` are unaffected. Engines that implement it must implement
   * {@link subjectRevokedAt} and honour `userId` / `issuedAt` in {@link isRevoked}.
   *
   * Without it (host engines written before it), `revokeUser` rejects, and a deleted user's access
   * tokens keep passing the bearer check until they expire (introspection, userinfo, refresh and
   * sessions still refuse them through `UserStore.findUser`).
   */
  revokeSubject?(userId: string, at: EpochMs, expiresAt: EpochMs): Promise<void>;
  /**
   * Optional, together with {@link revokeSubject}: the `at` of the user's mark in force at `now`,
   * or `null`. Asked when a session is loaded (not on the bearer path, which asks
   * {@link isRevoked}); like `isRevoked`, an in-process engine may answer synchronously.
   */
  subjectRevokedAt?(userId: string, now: EpochMs): EpochMs | null | Promise<EpochMs | null>;

  /**
   * Optional (required by `gatehouse.listGrants` and `gatehouse.revokeGrant`): the refresh tokens
   * of user `userId` (subject kind `user`) that can still be used at `now`: unexpired, not rotated,
   * their grant not revoked and not covered by the user's mark, in any order. Each live grant has
   * one (with rotation) or the one it was issued (without). Records of other instances, of client
   * subjects, rotated or revoked ones are never returned. Not on any request path: the host calls
   * it for its account pages, so a scan of the user's records is acceptable, a scan of everyone's
   * should be avoided (the Redis and PostgreSQL engines keep an index by user).
   */
  listUserRefreshTokens?(userId: string, now: EpochMs): Promise<readonly RefreshTokenRecord[]>;

  /**
   * Optional: pushes this instance's revocations to `listener` as the engine commits them, so that
   * each process can keep a mirror of them and answer the bearer check without a round trip (the
   * `pushedRevocations` option). An engine implementing it must:
   *
   * - deliver every revocation ({@link revokeGrant}, {@link revokeAccessToken}, {@link revokeSubject},
   *   by any process) to `listener.revoked` with the values in force after it (the later expiry,
   *   the later `at`), published in the same atomic step that writes it (a Redis script, a
   *   PostgreSQL transaction), in commit order;
   * - call `listener.connected()` once the channel is established (and again after every
   *   reconnection), before delivering anything sent on it, and `listener.lost()` when it breaks;
   * - deliver `probe(id)`'s `id` to `listener.echoed` through the same channel, after everything
   *   committed before the probe was sent (that is how the mirror proves its lag);
   * - answer {@link RevocationSubscription.snapshot} with every revocation in force.
   *
   * Gatehouse subscribes lazily (on the first bearer check) and trusts the mirror only while the
   * channel is connected, caught up (snapshot taken after `connected`) and a recent probe came
   * back; otherwise it asks {@link isRevoked}. Called without the storage guard: it must not throw.
   */
  watchRevocations?(listener: RevocationListener): RevocationSubscription;

  /**
   * Optional, with {@link watchRevocations}: `true` when an instance on this store should use
   * pushed revocations unless its `pushedRevocations` option says otherwise. An engine shared by
   * several processes sets it (the Redis and PostgreSQL engines), because there every bearer check
   * would otherwise be a round trip to it; an in-process store leaves it out (its `isRevoked` costs
   * no round trip, so the mirror would only add work).
   */
  readonly pushedRevocationsByDefault?: boolean;
}

/** A revocation as it is in force after a write: what a mirror needs to answer `isRevoked`. */
export type RevocationEvent =
  /** A grant revoked until `expiresAt` ({@link GrantStore.revokeGrant}). */
  | { readonly kind: 'grant'; readonly id: string; readonly expiresAt: EpochMs }
  /** An access token (`jti`) revoked until `expiresAt` ({@link GrantStore.revokeAccessToken}). */
  | { readonly kind: 'token'; readonly id: string; readonly expiresAt: EpochMs }
  /** A user's mark: everything issued at or before `at`, until `expiresAt` ({@link GrantStore.revokeSubject}). */
  | { readonly kind: 'subject'; readonly id: string; readonly at: EpochMs; readonly expiresAt: EpochMs };

/** Receives an engine's pushed revocations (see {@link GrantStore.watchRevocations}). */
export interface RevocationListener {
  /** The channel is (re)established: whatever is committed from now on will be delivered. */
  connected(): void;
  /** A revocation committed by any process, this one included. */
  revoked(event: RevocationEvent): void;
  /** A probe sent with {@link RevocationSubscription.probe} came back. */
  echoed(probeId: string): void;
  /** The channel broke: revocations committed meanwhile may never be delivered. */
  lost(): void;
}

/** One listener's subscription to an engine's revocations. */
export interface RevocationSubscription {
  /** Sends `probeId` through the channel; it comes back to every subscriber's `echoed`. */
  probe(probeId: string): Promise<void>;
  /** Every revocation of the instance in force at `now`. */
  snapshot(now: EpochMs): Promise<readonly RevocationEvent[]>;
  /** Stops delivery to this listener. */
  unsubscribe(): void;
}

/** A browser session (the session cookie's server side). Sessions are always a user's. */
export interface SessionRecord extends Omit<AuthenticationAttributes, 'nonce' | 'sessionId'> {
  /** `hashSecret(sessionId)`: the cookie's secret, never shown to anyone but the browser. */
  readonly idHash: string;
  /**
   * The session's public id (OIDC `sid`): random, unrelated to the cookie's secret, safe to put in
   * ID tokens and logout requests. Absent on sessions created before storage v2.
   */
  readonly sid?: string;
  readonly userId: string;
  /** When the user logged in (OIDC `auth_time`). */
  readonly createdAt: EpochMs;
  /** Last request seen; the idle timeout counts from here. */
  readonly lastSeenAt: EpochMs;
  /** Absolute end of the session, whatever the activity. */
  readonly expiresAt: EpochMs;
  /** Attributes later features attach, kept as given. */
  readonly ext?: RecordExtensions;
}

/** A remembered consent: this user allowed this client these scopes. */
export interface ConsentRecord {
  readonly userId: string;
  readonly clientId: string;
  /** Space-separated scopes granted so far. */
  readonly scope: string;
  readonly expiresAt: EpochMs;
  /** Attributes later features attach (e.g. consented claims), kept as given. */
  readonly ext?: RecordExtensions;
}

/** A fixed-window counter. */
export interface RateLimitWindow {
  readonly count: number;
  /** When the window ends and the counter starts again from zero. */
  readonly resetAt: EpochMs;
}

/**
 * A small key-value store with expiry: what Gatehouse builds its state on, beside the grant store
 * and the client registry. Sessions, consents, rate-limit windows and replay ids (`storage/kv/`),
 * and the short-lived state of the protocol flows (pushed authorization requests, device codes,
 * interactions, the per-user session index) are records of it. Values are opaque strings (callers
 * store JSON and bound its size); keys are at most 512 characters and are scoped to the instance by
 * the engine, like every other record. Every method is one atomic step on the engine: `add`,
 * `take`, `swap` and `increment` are what single use, state transitions and counters are built on.
 */
/**
 * What a write to a {@link KeyValueStore} may say about who pays for the entry (issue 41, "fair
 * shares"). An engine that bounds its entries (the memory engine) charges the entry to
 * `partition`; an engine bounded only by its capacity (Redis, PostgreSQL, a host's database)
 * ignores it, and so may a host's own store.
 */
export interface KeyValueWriteOptions {
  /**
   * Who pays for a new entry: a short, fixed-size name of a client network aggregate, a client, a
   * user or a token (`net:…`, `client:…`, built by Gatehouse from digests). When a bounded engine
   * is full, it evicts the oldest entries of the partition that holds the most, never refusing a
   * lighter one, and then refuses new keys of that partition until the evicted entries would have
   * expired, so what was evicted (a replay id, a counter) is never forgotten by its partition.
   * Entries written without a partition (a finished interaction, a session) are never evicted.
   */
  readonly partition?: string;
}

export interface KeyValueStore {
  /** The value of `key`, or `null` when it is absent or expired at `now`. */
  get(key: string, now: EpochMs): Promise<string | null>;
  /** Sets `key` to `value` until `expiresAt`, replacing any value. */
  set(key: string, value: string, expiresAt: EpochMs, options?: KeyValueWriteOptions): Promise<void>;
  /**
   * Sets `key` only when it is absent or expired at `now`: `true` when this call set it. Of
   * concurrent callers adding one key, exactly one wins.
   */
  add(
    key: string,
    value: string,
    expiresAt: EpochMs,
    now: EpochMs,
    options?: KeyValueWriteOptions,
  ): Promise<boolean>;
  /**
   * Returns the unexpired value of `key` and deletes it, in one step: of concurrent callers taking
   * one key, exactly one gets the value (single use).
   */
  take(key: string, now: EpochMs): Promise<string | null>;
  /**
   * Replaces the value of `key` with `value` (until `expiresAt`) only when its current unexpired
   * value is exactly `expected` (compare-and-set): `true` when replaced. Of concurrent callers
   * swapping from one value, at most one wins.
   */
  swap(
    key: string,
    expected: string,
    value: string,
    expiresAt: EpochMs,
    now: EpochMs,
    options?: KeyValueWriteOptions,
  ): Promise<boolean>;
  /** Deletes `key` (nothing when absent). */
  delete(key: string): Promise<void>;
  /**
   * Adds `by` (a whole number, at least 1) to the counter `key` and returns its new value, in one
   * atomic step: of `n` concurrent increments by 1 of a fresh counter, each gets a distinct value
   * from 1 to `n`. A counter absent or expired at `now` starts from 0 and lives until `expiresAt`;
   * a live one keeps its expiry (a fixed window). The value is the decimal string of the count, as
   * `get` returns it. `increment` of a key holding a value that is not a whole number of at most 15
   * digits is not defined (callers keep counters under keys of their own).
   */
  increment(
    key: string,
    by: number,
    expiresAt: EpochMs,
    now: EpochMs,
    options?: KeyValueWriteOptions,
  ): Promise<number>;
}

/**
 * The state one Gatehouse instance keeps: one view of a {@link StorageEngine}. Gatehouse builds
 * sessions, consents, rate limits and replay ids on {@link kv}; the grant store and the client
 * registry stay stores of their own (their operations need more than one key atomically, or a
 * count of live records). A host with its own database implements these three, or takes an engine.
 */
export interface GatehouseStorage {
  /** Codes, refresh tokens and revocations, with their atomic single-use operations. */
  readonly grants: GrantStore;
  /** Clients registered with the instance itself. */
  readonly clients: ClientRegistry;
  /** Everything else ({@link KeyValueStore}). */
  readonly kv: KeyValueStore;
  /**
   * Deletes every record of this instance, and nothing of any other instance on the same engine:
   * for tests and for decommissioning an instance. Not atomic with concurrent writes of the same
   * instance (stop its traffic first).
   */
  clear(): Promise<void>;
}

/**
 * A storage engine shared by many instances (one Redis key space, one PostgreSQL schema, one
 * process's memory). Pass it as `createGatehouse({ storage })`: the instance takes the view of its
 * `instanceId` (by default its issuer).
 */
export interface StorageEngine {
  /**
   * The view of one instance. `instanceId` is stable for the life of the instance's data (it is
   * part of every key): 1 to 256 characters, no whitespace, control characters or braces (see
   * `checkInstanceId`). Views of the same id share their records; views of different ids share
   * nothing.
   */
  instance(instanceId: string): GatehouseStorage;
}
