import type { AuditSink } from './audit/audit-record.js';
import type { Awaitable } from './awaitable.js';
import type { EventContext, GatehouseEvent, Logger } from './events.js';
import type { OutboundFetch } from './http/guarded-fetch.js';
import type { HostUser } from './oauth2/interaction/types.js';
import type { TokenExchangeRequest } from './oauth2/token-exchange/exchanged-token.js';
import type { Caller } from './protect/types.js';
import type { PushedRevocationsOptions } from './revocation/revocation-mirror.js';
import type { InstanceStorage } from './storage/required-stores.js';
import type {
  ClientRecord,
  ClientStore,
  StorageEngine,
  UserLookup,
  UserRecord,
  UserStore,
} from './storage/types.js';
import type { AuthorizationDetail } from './tokens/authorization-details.js';
import type { ClaimsHook } from './tokens/claims-hook.js';
import type { KeySigner } from './tokens/key-signer.js';
import type { PrivateJwk, SigningAlgorithm } from './tokens/keys.js';
import type { RandomBytes } from './tokens/secrets.js';
import type {
  ConsentPageRenderer,
  EndSessionPageRenderer,
  ErrorPageRenderer,
  LoginPageRenderer,
  LogoutPageRenderer,
} from './ui/types.js';

/** Options of {@link createGatehouse}. Every lifetime is in seconds. */
export interface GatehouseOptions {
  /**
   * The instance's base URL, `{base_url}`: origin plus instance path, e.g.
   * `https://example.com/demo`. It is the `iss` of every token (RFC 8414 §2) and the prefix of
   * every route. Must be https, except for `localhost`/loopback or with {@link allowInsecureIssuer}.
   * Written exactly as it is used, since relying parties compare it byte for byte: no trailing
   * slash (`https://example.com`, not `https://example.com/`), host in lower case, no default
   * port; anything else is refused at creation, naming the form to give.
   */
  readonly issuer: string;
  /** Allows an `http:` issuer on a non-loopback host (never in production). Default `false`. */
  readonly allowInsecureIssuer?: boolean;

  /**
   * Private JWKs (each with a `kid`), of one or several algorithms (ES256, EdDSA, RS256): the first
   * key of each algorithm signs, all verify, and the JWKS publishes them all. Create one with
   * `generateKeys(alg)`. ID tokens are signed with RS256 unless a client registers another
   * algorithm (OpenID Connect Core §3.1.3.7), so an OpenID Provider holds an RS256 key too.
   * Rotate by prepending a new key and dropping the old one once its tokens have expired, or let
   * {@link keyRotation} keep the signing keys: then `keys` may be `[]`, and keys of a rotated
   * algorithm only verify (tokens they signed before).
   */
  readonly keys: readonly PrivateJwk[];
  /**
   * Keys whose private half stays in a KMS, an HSM or another process: each `KeySigner` gives its
   * public JWK and signs the bytes Gatehouse hands it. A signer signs everything of its algorithm
   * (one per algorithm) instead of `keys`, whose keys of that algorithm then only verify (public
   * JWKs are enough; `keys` may be `[]`). Its key is published first in the JWKS. See "Keys and
   * rotation" in the docs. Default: none (the in-process keys sign).
   */
  readonly signers?: readonly KeySigner[];
  /**
   * Signing keys kept in the storage engine, encrypted with a host key, and rotated on a schedule:
   * every process of the issuer signs with the same current key, the next key is published
   * `leadTime` before it signs, and a retired key stays published until the tokens it signed have
   * expired. `gatehouse.keys.rotate()` and `gatehouse.keys.revoke(kid)` act on demand. See "Keys and
   * rotation" in the docs. Default: off (the keys of `keys` and `signers` sign).
   */
  readonly keyRotation?: KeyRotationOptions;
  /** Signing algorithm of access tokens; `keys` or `signers` must hold a key of it. Default `'ES256'`. */
  readonly algorithm?: SigningAlgorithm;
  /**
   * Accepts, when `NODE_ENV` is `production`, keys that `generateKeys()` made in this process and
   * that were never stored: every token they sign dies with the process, and no other process
   * verifies it. Without this option such keys are refused in production. Default `false`.
   */
  readonly allowEphemeralKeys?: boolean;

  /** The host's clients. */
  readonly clients: ClientStore;
  /**
   * How the key sets of `private_key_jwt` clients registered with `jwksUri` are fetched: through
   * the guarded fetch (https only, public addresses only, no redirects, a deadline and a size cap),
   * then cached. See docs/client-authentication.md.
   */
  readonly clientJwks?: ClientJwksOptions;
  /**
   * The host's users: looked up by id (`findUser`), and their passwords checked (`verifyPassword`)
   * by the built-in login page and the Auth API. A host that signs users in itself
   * (`interactions.url`) with `authApi.enabled: false` gives `findUser` only.
   */
  readonly users: UserStore | UserLookup;
  /**
   * Where Gatehouse keeps codes, tokens and revocations (`grants`), registered clients (`clients`)
   * and everything else (`kv`, a key-value store: sessions, consents, counters, replay ids,
   * short-lived flow state). Either a storage engine shared by several instances (`memoryEngine()`,
   * `redisEngine(…)`, `postgresEngine(…)`), of which the instance takes the view of its
   * {@link instanceId}; or one instance's stores, all three (`redisStorage(…)`, or your own). A
   * missing or misspelt store is refused at creation (`ConfigurationError` naming it), as are the
   * stores of host contract v2 (`sessions`, `consents`, `rateLimits`, `replay`); to keep some stores
   * in this process's memory, say so: `withMemoryFallback({ grants })`.
   * Default: every store in memory, for this instance alone.
   */
  readonly storage?: InstanceStorage | StorageEngine;
  /**
   * The instance's name inside a shared storage engine: part of every key of its records, so it must
   * stay the same for the life of the data (1 to 256 characters, no whitespace or braces). Default:
   * the issuer. Set it when the issuer may change (a new domain) but the grants and sessions must
   * survive. Only used when `storage` is an engine.
   */
  readonly instanceId?: string;
  /** Upper bound, in milliseconds, on any single storage call before it counts as failed (503). Default 5000. */
  readonly storageTimeoutMs?: number;
  /**
   * Answer the bearer check's revocation question from a per-process mirror of the revocations,
   * pushed by the engine (Redis pub/sub, PostgreSQL `LISTEN/NOTIFY`), instead of one engine round
   * trip per request. A revocation committed by any process holds here within `maxLagMs` (default
   * 1000); while the channel is down, lagging or catching up the check asks the engine, as without
   * this option. Requires a grant store with `watchRevocations` (the Redis, PostgreSQL and memory
   * engines). `false`: every bearer check asks the engine (one round trip each on Redis and
   * PostgreSQL), so a revocation holds everywhere at once. Default: on (lag 1000 ms) for the Redis
   * and PostgreSQL engines (grant stores with `pushedRevocationsByDefault`), off for the memory
   * engine and other stores.
   */
  readonly pushedRevocations?: boolean | PushedRevocationsOptions;

  /** Scopes the instance knows. Requests for others fail with `invalid_scope`. Default: any. */
  readonly scopes?: readonly string[];
  /** Scope granted when an authorization request names none. Default: empty. */
  readonly defaultScope?: string;
  /**
   * The `aud` of access tokens: the identifier of the protected REST API. Default `{issuer}/api/v1`.
   */
  readonly audience?: string;
  /**
   * Further protected resources (RFC 8707 resource indicators) clients may request tokens for with
   * the `resource` parameter, e.g. an MCP server's URL `https://example.com/mcp`: absolute URIs
   * without a fragment. A token requested for some of them has exactly those as its `aud`; one
   * requested without `resource` keeps {@link audience}, which is always a known resource. A client
   * whose registration lists `resources` may request only those. Any other `resource` is refused
   * with `invalid_target`. Default: none besides {@link audience}.
   */
  readonly resources?: readonly string[];

  /** OAuth 2.0 access token lifetime (`expires_in`). Default 3600 (1 hour). */
  readonly accessTokenTtl?: number;
  /** Refresh token lifetime. Default 2,592,000 (30 days). Rotation issues each new token with a fresh lifetime. */
  readonly refreshTokenTtl?: number;
  /** Authorization code lifetime (RFC 6749 §4.1.2 recommends at most 10 minutes). Default 60. */
  readonly authorizationCodeTtl?: number;
  /**
   * Issue a new refresh token on every refresh and treat reuse of a rotated one as theft, revoking
   * the grant (RFC 9700 §4.14.2). Default `true`. Rotation is strict, with no grace period: clients
   * that refresh from several tabs must serialise refreshes (`@gatehousejs/client` does, with a
   * single flight per page and the Web Locks API across tabs).
   */
  readonly rotateRefreshTokens?: boolean;
  /**
   * Which clients must use PKCE S256 (RFC 7636). `'public'` (default): public clients must,
   * confidential ones may (and are held to it when they send a challenge). `'all'`: everyone must.
   */
  readonly requirePkce?: 'public' | 'all';
  /**
   * A security profile the whole instance follows. `'fapi2'`: the FAPI 2.0 Security Profile as far
   * as Gatehouse can (see `docs/fapi2.md`): pushed authorization requests required, PKCE S256 for
   * every client, DPoP-bound tokens only, confidential clients with `private_key_jwt` only (public
   * clients, DPoP-bound, remain possible), authorization codes of at most 60 seconds. mTLS is not
   * offered. `'fapi2-strict'`: the same, with confidential clients only (FAPI 2.0 Security Profile
   * §5.3.2.1 item 1): a public client of the host's `memoryClientStore` is a `ConfigurationError`,
   * any other public client (another store, a client ID metadata document) is refused with 401
   * `invalid_client`, and `dynamicRegistration` needs an `initialAccessToken` and registers
   * `private_key_jwt` clients only. Default: none.
   */
  readonly securityProfile?: 'fapi2' | 'fapi2-strict';

  /**
   * RFC 9126 pushed authorization requests at `{base}/oauth2/v1/par` (always served; see
   * `docs/pushed-authorization-requests.md`): how long a `request_uri` lives, and whether every
   * client must push its requests.
   */
  readonly pushedAuthorizationRequests?: PushedAuthorizationRequestOptions;
  /**
   * RFC 9449 DPoP (sender-constrained tokens; see `docs/dpop.md`): the proof algorithms accepted,
   * the proof lifetime, and server nonces.
   */
  readonly dpop?: DpopOptions;

  /**
   * RFC 9396 rich authorization requests (see `docs/rich-authorization-requests.md`): the
   * authorization detail types the instance accepts in `authorization_details` (at the
   * authorization, pushed authorization request and token endpoints), each with the host's
   * validator and the words the consent page shows, and the bounds on what a request may carry.
   * Off unless given (the parameter is then ignored, RFC 6749 §3.1).
   */
  readonly authorizationDetails?: AuthorizationDetailsOptions;
  /**
   * RFC 9101 signed request objects (JAR, see `docs/request-objects.md`): the `request` parameter
   * of the authorization and pushed authorization request endpoints, a JWT signed with a key the
   * client registered (`jwks` / `jwksUri`). Always accepted from clients with keys; these options
   * require them of every client, or let a client registered for it send unsigned ones.
   */
  readonly requestObjects?: RequestObjectOptions;

  /** The credential-exchange Auth API under `{base}/auth/v1/`. */
  readonly authApi?: AuthApiOptions;
  /** Browser sessions and the login page. */
  readonly session?: SessionOptions;
  /** Brute-force protection of password checks (login page and Auth API). */
  readonly rateLimit?: RateLimitOptions;
  /** How much password-hashing work may be in flight at once (login page and Auth API). */
  readonly passwordChecks?: PasswordCheckOptions;
  /** CORS for the REST API and the OAuth endpoints browsers call. */
  readonly cors?: CorsOptions;
  /** The HTML pages' wording, branding and scope descriptions, and replacements for any page. */
  readonly ui?: UiOptions;
  /**
   * Sign-in and consent owned by the host (docs/own-sign-in.md): the host's page where an
   * authorization request that needs the user goes (`url`), and the host's signed-in user of a
   * request (`currentUser`), so a browser already signed in to the host gets its code with no page.
   * Default: the built-in login and consent pages, Gatehouse's own session.
   */
  readonly interactions?: InteractionOptions;
  /**
   * Adds the host's own claims (roles, tenant, plan, …) to ID tokens, userinfo answers and OAuth
   * access tokens, per client, scope and resource: `({ target, sub, clientId, scopes, resources,
   * user }) => claims`. Protocol claims (`iss`, `sub`, `aud`, `exp`, `scope`, `client_id`, `acr`,
   * `amr`, `cnf`, …) are never overridden (left out, with a warning); an access token takes at most
   * 2,048 bytes of them. May be async; a throw is a 503. Default: none (ID tokens and userinfo carry
   * the standard claims of the granted scopes from `users.findUser`).
   */
  readonly claims?: ClaimsHook;
  /**
   * RFC 7591 dynamic client registration at `{base}/oauth2/v1/register` (and RFC 7592 read and
   * delete of a registration). Off unless given: `dynamicRegistration: {}` opens it with the
   * defaults (public clients only, rate limited per address, unused registrations lapse after 30
   * days). See `docs/client-registration.md`.
   */
  readonly dynamicRegistration?: DynamicRegistrationOptions;
  /**
   * The device authorization grant (RFC 8628, `docs/device-flow.md`): code lifetime, polling
   * interval, and the bounds on starting authorizations and on guessing user codes. The grant is
   * served to every client registered with the `urn:ietf:params:oauth:grant-type:device_code`
   * grant type; these options only tune it.
   */
  readonly deviceAuthorization?: DeviceAuthorizationOptions;
  /**
   * The connected apps page at `{base}/account/apps`: a signed-in user (Gatehouse's session, or
   * the host's `interactions.currentUser`; a sign-in first otherwise) sees which applications hold
   * access to their account (scopes, since when, last used) and revokes one, which ends its refresh
   * tokens and, through the revocation check, its access tokens. Default `true`; `false` takes the
   * page away (`gatehouse.connectedApps` and `gatehouse.revokeApp` serve a host's own page either
   * way). See `docs/operations-console.md`.
   */
  readonly connectedApps?: boolean;
  /**
   * The operations console at `{base}/admin/`: keys with their timeline (rotate, revoke), clients
   * (self-registered ones marked, deletable), a user search with sessions and grants (revoke),
   * the audit trail with filters, and charts of the last hour. Server-rendered pages over the admin
   * API, signed in through the instance itself (authorization code flow with PKCE of the console's
   * own public client, `gatehouse-operations-console`, whose id is reserved), open to the users the
   * `admin.authorize` hook designates. Default: on whenever the admin API is (`admin`); `false`
   * turns it off. See `docs/operations-console.md`.
   */
  readonly adminConsole?: boolean;
  /**
   * OpenID Connect Client-Initiated Backchannel Authentication (CIBA Core 1.0, `docs/ciba.md`):
   * a client asks at `{base}/oauth2/v1/backchannel_authentication` for a user's approval, named by
   * `login_hint` or `id_token_hint`; the user approves on their authentication device (the
   * {@link CibaOptions.notify} hook) or on the approval page `{base}/approvals`; the client gets the
   * tokens with the `urn:openid:params:grant-type:ciba` grant, polling (`poll` mode) or told by a
   * POST to its notification endpoint (`ping` mode). Off unless given: `ciba: {}` turns it on.
   */
  readonly ciba?: CibaOptions;
  /**
   * Client ID metadata documents (draft-ietf-oauth-client-id-metadata-document): a `client_id` that
   * is an https URL is fetched and its JSON document used as the client's registration. Off unless
   * given: `clientMetadataDocuments: {}` turns it on. Documents are kept in a bounded in-process
   * cache (never in `storage`), each fetch is charged to the caller's address. See
   * `docs/client-registration.md`.
   */
  readonly clientMetadataDocuments?: ClientMetadataDocumentOptions;
  /**
   * The admin API at `{base}/admin/v1/` (docs/admin-api.md): keys and their rotation, clients,
   * users' sessions and grants, the audit trail, health and metrics, described by an OpenAPI 3.1
   * document at `{base}/admin/v1/openapi.json`. Every call needs an access token of this instance
   * carrying {@link AdminOptions.scope} whose caller the host's `authorize` hook allows. Off unless
   * given.
   */
  readonly admin?: AdminOptions;
  /**
   * OpenID Connect Back-Channel Logout 1.0: when a session ends (the logout page, RP-initiated
   * logout, `endSession`, `revokeSession`, `revokeUser`), every client that received tokens in it
   * and registered a `backchannelLogoutUri` (RFC 7591: `backchannel_logout_uri`) is sent a signed
   * logout token, after the user's answer, retried with backoff, through the guarded outbound
   * fetch. Off unless given: `backchannelLogout: {}` turns it on. See `docs/backchannel-logout.md`.
   */
  readonly backchannelLogout?: BackchannelLogoutOptions;

  /**
   * OAuth 2.0 Token Exchange (RFC 8693) at the token endpoint: a client trades a token of a subject
   * (a user's access or ID token, or a JWT of a {@link trustedIssuers | trusted issuer}) for a new
   * token for another resource, carrying the delegation chain in `act` (§4.1). Off unless given;
   * the `policy` decides every exchange. See `docs/token-exchange.md`.
   */
  readonly tokenExchange?: TokenExchangeOptions;
  /**
   * The host's own grant types at the token endpoint (RFC 6749 §4.5 extension grants), as
   * oidc-provider's `registerGrantType`: each `type` (an absolute URI) is served after Gatehouse's
   * client authentication, the client's registration for it (`grantTypes` must name it) and the
   * DPoP proof; `handle` decides who the token is for. See `docs/extension-grants.md`.
   */
  readonly extensionGrants?: readonly ExtensionGrant[];
  /**
   * What a user's consent to a client is remembered as (`consent.remember`): by default all the
   * scopes and resources they allowed, for a year. See "Remembered consent" in `docs/browser-flow.md`.
   */
  readonly consent?: ConsentOptions;
  /**
   * Other issuers whose JWTs this instance accepts, verified with their published keys: as the
   * `subject_token` or `actor_token` of a token exchange, and as the assertion of the JWT bearer
   * grant (RFC 7523 §2.1), among them the identity assertion grants (ID-JAG) of an enterprise
   * identity provider. Their `jwksUri` is fetched under the {@link clientJwks} policy. Default: none.
   */
  readonly trustedIssuers?: readonly TrustedIssuerOptions[];

  /** Largest accepted request body, in bytes; larger bodies get 413. Default 65,536. */
  readonly maxBodyBytes?: number;
  /** Clock tolerance, in seconds, when verifying access token `exp`/`iat`. Default 5. */
  readonly clockToleranceSeconds?: number;

  /** Milliseconds since the epoch. Default `Date.now`. Injected so tests can move time. */
  readonly now?: () => number;
  /** Random bytes. Default Web Crypto. */
  readonly randomBytes?: RandomBytes;
  /**
   * Receives security events, with where and when they happened (time, instance, client address);
   * never receives secrets. Called synchronously: queue slow work.
   */
  readonly onEvent?: (event: GatehouseEvent, context: EventContext) => void;
  /**
   * The audit trail: every security event as one audit record (timestamp, instance, client
   * id, subject, client address, outcome, reason), written to each sink, e.g.
   * `jsonLinesAuditSink((line) => process.stdout.write(line))` or `fileAuditSink(path)` of
   * `@gatehousejs/core/node`. A sink that throws or rejects is logged; the request goes on. See
   * "Audit events" in the docs.
   */
  readonly audit?: AuditSink | readonly AuditSink[];
  /**
   * OpenTelemetry traces and metrics, through the host's `@opentelemetry/api` (an optional peer
   * dependency, never an SDK): a span per request and per storage call, W3C trace context taken from
   * the request, and request, token, refusal and storage-latency metrics, recorded once the host
   * registers a provider. `{ api }` with `import * as api from '@opentelemetry/api'`. Default: off.
   * See "Observability" in the docs.
   */
  readonly telemetry?: TelemetryOptions;
  /** Receives diagnostics (store failures, configuration warnings). Default: `console`. */
  readonly logger?: Logger;
  /**
   * The debug log: one line per refused request (4xx, and every introspection answered
   * `{"active":false}`) through `logger.debug` (else `console.debug`), with the method, path,
   * status, code and the reason the answer does not say (which client authentication method is
   * registered and which was used, an unknown client, an expired or revoked token, a resource
   * server whose `introspects` does not name the token's audience, …). Never a secret, token or query string. Default: on when the
   * environment has `GATEHOUSE_DEBUG=1`, else off.
   */
  readonly debug?: boolean;
}

/**
 * Options of `keyRotation`: signing keys kept in the instance's storage (its key-value store), each
 * private key encrypted with AES-GCM under {@link keyEncryptionKey}. The schedule is shared by every
 * process of the issuer through that one record.
 */
export interface KeyRotationOptions {
  /**
   * The key-encryption key (KEK) that encrypts the stored private keys (AES-GCM): 16, 24 or 32
   * random bytes, as a `Uint8Array` or base64url text (e.g.
   * `node -e "console.log(crypto.randomBytes(32).toString('base64url'))"`). Keep it out of the
   * database (a secret manager, an environment variable): whoever reads the storage without it gets
   * public keys and ciphertext only. Every process of the issuer needs the same one. Required.
   */
  readonly keyEncryptionKey: Uint8Array | string;
  /**
   * Earlier KEKs, which only decrypt: after changing {@link keyEncryptionKey}, list the old one here
   * until the stored keys have been written again (the next rotation re-encrypts them all with the
   * new KEK). Default: none.
   */
  readonly previousKeyEncryptionKeys?: readonly (Uint8Array | string)[];
  /** How long each key signs before the next one takes over, in seconds. Default 30 days (2,592,000). */
  readonly rotateEvery?: number;
  /**
   * How long a new key is published in the JWKS before it signs, in seconds: longer than any
   * relying party caches the JWKS, so that none meets a token of a `kid` it has not fetched. The
   * JWKS endpoint's `Cache-Control: max-age` is kept at most half of it. Default 1 day (86,400).
   */
  readonly leadTime?: number;
  /**
   * How long a key stays published (and verifies) after it stopped signing, in seconds: at least
   * the longest lifetime of what it signed (`accessTokenTtl`, `authApi.tokenTtl`, ID tokens and
   * ID-JAGs), which is also the default; a shorter value is refused.
   */
  readonly retainFor?: number;
  /**
   * The algorithms whose keys are stored and rotated: keys of `keys` of these algorithms only
   * verify, and a signer (`signers`) of one of them is refused. Default: `algorithm` (access tokens)
   * and `RS256` (ID tokens, OpenID Connect Core §3.1.3.7).
   */
  readonly algorithms?: readonly SigningAlgorithm[];
  /**
   * How often each process re-reads the stored key set, in seconds: a key rotated on demand or
   * revoked in another process is seen here within this bound. A token of an unknown `kid` also
   * makes it re-read, at most once a second. A new key signs `leadTime + refreshInterval` after it
   * was stored, so every process has published it for `leadTime`. Default 30; at most `leadTime`.
   */
  readonly refreshInterval?: number;
}

/** Options of pushed authorization requests (RFC 9126). */
export interface PushedAuthorizationRequestOptions {
  /**
   * Every client must push its authorization requests (RFC 9126 §5
   * `require_pushed_authorization_requests` in the metadata): a plain authorization request is
   * refused with `invalid_request`. Default `false`; a client can require it for itself with
   * `requirePushedAuthorizationRequests` in its registration.
   */
  readonly required?: boolean;
  /**
   * Lifetime of a `request_uri` (its `expires_in`), in seconds: the client redirects the browser at
   * once, so it is short. Default 60, at most 600.
   */
  readonly requestUriTtl?: number;
  /**
   * Pushes of public clients (which prove no identity, so anyone can push as one) per client
   * network (IPv6: its /64) per minute; over it, 429 `too_many_requests` with `Retry-After`.
   * Confidential clients are not counted. Default 30.
   */
  readonly maxPublicPushesPerAddress?: number;
}

/**
 * One authorization detail type of RFC 9396 (`authorizationDetails.types`): how its details are
 * checked, shown to the user, and compared when a token request narrows a grant.
 */
export interface AuthorizationDetailType {
  /**
   * Checks one detail of this type, as the client sent it, for this client: its common members
   * (RFC 9396 §2.2) are already checked for their shape, the type's own members are not. Return
   * nothing to accept it, or a sentence saying what is wrong: the request is then refused with
   * `invalid_authorization_details` and the sentence as `error_description` (RFC 9396 §5).
   * Synchronous: it checks the detail, not the user's rights (the user decides on the consent
   * page). A throw is a 500.
   */
  readonly validate: (
    detail: AuthorizationDetail,
    context: { readonly client: ClientRecord },
  ) => string | undefined;
  /**
   * The detail in words for the consent page and `interactions.details()` (plain text, escaped
   * by the page), in the page's language (`locale`, a BCP 47 tag such as `en` or `fr`):
   * e.g. "Read and write your support tickets". RFC 9396 §13: the user must be able to see what
   * they grant.
   */
  readonly describe: (detail: AuthorizationDetail, locale: string) => string;
  /**
   * Whether a detail asked for at the token endpoint (`requested`) is within one the grant holds
   * (`granted`): a token request may narrow the grant's details, never widen them (RFC 9396 §6.1).
   * Default: every member of `requested` is in `granted`: the same value, or for the arrays
   * (`actions`, `locations`, …) a subset.
   */
  readonly covers?: (granted: AuthorizationDetail, requested: AuthorizationDetail) => boolean;
}

/** Options of rich authorization requests (RFC 9396). */
export interface AuthorizationDetailsOptions {
  /**
   * The types the instance accepts (`authorization_details_types_supported`), by type name: at
   * least one. A client registered with `authorizationDetailsTypes` may use only those.
   */
  readonly types: Readonly<Record<string, AuthorizationDetailType>>;
  /**
   * Most details one `authorization_details` parameter may hold; more is
   * `invalid_authorization_details`. Default 10, at most 100.
   */
  readonly maxDetails?: number;
  /**
   * Longest `authorization_details` parameter, in bytes of UTF-8 JSON; longer is
   * `invalid_authorization_details`. It is unauthenticated input at the authorization endpoint,
   * stored with the interaction and the code, and carried in every access token of the grant.
   * Default 2,048, from 64 to 4,096.
   */
  readonly maxBytes?: number;
}

/** Options of signed request objects (RFC 9101). */
export interface RequestObjectOptions {
  /**
   * Every authorization request must be a signed request object (RFC 9101 §10.5
   * `require_signed_request_object` in the metadata): sent by value as `request`, directly or
   * pushed. Default `false`; a client can require it for itself with `requireSignedRequestObject`.
   * FAPI 2.0 Message Signing asks it of every client: set it with `securityProfile: 'fapi2'`.
   */
  readonly required?: boolean;
  /**
   * Accept unsigned request objects (`alg: none`) from the clients registered for them
   * (`requestObjectSigningAlg: 'none'`), and list `none` in
   * `request_object_signing_alg_values_supported`. Default `false`: an unsigned object is refused
   * whatever the client's registration. Not allowed with `securityProfile: 'fapi2'` or `required`.
   */
  readonly allowUnsigned?: boolean;
}

/** Options of DPoP (RFC 9449). */
export interface DpopOptions {
  /**
   * The JWS algorithms DPoP proofs may use (`dpop_signing_alg_values_supported`): asymmetric only.
   * Default `['ES256', 'EdDSA', 'RS256', 'PS256']`.
   */
  readonly signingAlgorithms?: readonly ('ES256' | 'ES384' | 'EdDSA' | 'RS256' | 'PS256')[];
  /**
   * How old (by its `iat`) a proof may be, in seconds, and how far ahead of the server's clock its
   * `iat` may be (the clock tolerance). Default 60, at most 300.
   */
  readonly proofLifetime?: number;
  /**
   * Require a server nonce (RFC 9449 §8, §9) in proofs: a proof without the current nonce is
   * answered `use_dpop_nonce` with a fresh `DPoP-Nonce`. `'token'`: at the token endpoint,
   * `'all'`: there and at resource servers (userinfo, protected operations). Default `'off'`.
   */
  readonly requireNonce?: 'off' | 'token' | 'all';
  /**
   * How long a nonce stays valid, in seconds (nonces are stateless: an HMAC of a time window, so
   * no storage is used). Default 300, between 10 and 3600.
   */
  readonly nonceLifetime?: number;
  /**
   * The secret nonces are keyed with (at least 32 characters). Give the same one to every process
   * of an instance behind a load balancer, so that a nonce one process issued is accepted by the
   * others. Default: a random secret per process.
   */
  readonly nonceSecret?: string;
}

/**
 * Options of interactions: handing sign-in and consent to the host (docs/own-sign-in.md). The host
 * reads what is asked with `gatehouse.interactions.details(request)` and answers with
 * `gatehouse.interactions.finish(request, result)`.
 */
export interface InteractionOptions {
  /**
   * The host's page for sign-in and consent, on the issuer's origin: a path (`'/login'`) or an
   * absolute URL of that origin. An authorization request that needs the user (no sign-in,
   * `prompt=login`, a sign-in older than `max_age`, consent) sends the browser there (303) with
   * `?interaction=<reference>` added; the built-in login and consent pages are then never shown
   * (their routes answer 404). Default: the built-in pages are the interaction handlers
   * (`{base}/login`, `{base}/consent`), which need `users.verifyPassword`.
   */
  readonly url?: string;
  /**
   * The host's signed-in user of a request (its own session cookie), or `null` when nobody is
   * signed in to the host, or `undefined` when the host does not know (Gatehouse's own session then
   * decides). Asked on every authorization request: a browser signed in to the host gets its code
   * without any page, even one Gatehouse has never seen, and host sign-out is sign-out here too
   * (`null` ends Gatehouse's own session of that browser). The host's session is the source of
   * truth. May be async; a throw is a 503. `request` is a platform `Request` (also behind the Node
   * adapters, whose own request objects stay inside Gatehouse).
   */
  readonly currentUser?: (
    request: Request,
  ) => HostUser | null | undefined | Promise<HostUser | null | undefined>;
  /** Lifetime of an interaction reference, in seconds: 30 to 3600. Default 600 (10 minutes). */
  readonly ttl?: number;
  /**
   * Interactions one client address (an IPv6 /64 counts as one, see `rateLimit.clientAddress`) may
   * start per `ttl`, and eight times as many its /24 or /48 aggregate: each stores a record until it
   * expires, on an unauthenticated request, so their number is bounded per network (beyond it: an
   * error page, 429 with `Retry-After`). Default 30: what people behind one address start in ten
   * minutes; raise it for a large network behind one address (docs/security.md, "Stored state").
   */
  readonly maxPerNetwork?: number;
}

/** The `telemetry` option. */
export interface TelemetryOptions {
  /**
   * The `@opentelemetry/api` module (`import * as api from '@opentelemetry/api'`). Passed by the host
   * rather than imported by Gatehouse, so that the main entry needs no optional package and loads on
   * every runtime (workerd refuses a dynamic import of a computed name).
   */
  readonly api: object;
}

/** Options of the Auth API (`{base}/auth/v1/…`: username and password in, access token out). */
export interface AuthApiOptions {
  /**
   * Serve `{base}/auth/v1/…`. Default `true`. It exchanges a username and password for a token,
   * i.e. the resource owner password grant in another shape (RFC 9700 §2.4): keep it for
   * first-party tools and scripts, and prefer the authorization code flow for anything else.
   */
  readonly enabled?: boolean;
  /** Lifetime of Auth API access tokens. Default 86,400 (24 hours). */
  readonly tokenTtl?: number;
  /**
   * The scope every Auth API token carries (space-separated; each must be in `scopes` when that is
   * set). Default `''`: no scope, so an Auth API token passes only operations that require none.
   *
   * What a token may do is decided where it is checked: an operation's `scope` requirement compares
   * against this set for Auth API tokens, against the granted scope for OAuth tokens, and sessions
   * (the user acting directly) pass every scope requirement. Give Auth API tokens the scopes of
   * what your first-party tools do (e.g. `'tickets:read'`); an operation that must never be reached
   * with a password-issued token requires a scope left out here.
   */
  readonly scope?: string;
}

/** Options of browser sessions. */
export interface SessionOptions {
  /** Session cookie name. Default `gatehouse_session`. */
  readonly cookieName?: string;
  /**
   * The session cookie's `Path`. Default: the instance path (`/demo` for issuer
   * `https://example.com/demo`), so that the cookie reaches Gatehouse's own routes and nothing else.
   *
   * Set it to a prefix of the instance path (`/` most often) when the host's own routes outside the
   * instance path authenticate with the `session` scheme (`app.get('/me', requireAuth(…, { schemes:
   * ['session'] }))`): a browser only sends a cookie to paths below its `Path`. Trade-offs: every
   * route under that path then receives the cookie (it is HttpOnly and SameSite=Lax, and Gatehouse's
   * session scheme still checks origin and CSRF rules), and several instances on one host under the
   * same cookie path must use distinct `cookieName`s, or they overwrite each other's cookie. The login
   * form's CSRF cookie stays on the instance path.
   */
  readonly cookiePath?: string;
  /** Idle timeout: a session unused this long ends. Default 1800 (30 minutes). */
  readonly idleTimeout?: number;
  /** Absolute timeout: a session ends this long after login, whatever the activity. Default 43,200 (12 hours). */
  readonly absoluteTimeout?: number;
}

/**
 * Options of the password rate limiter. The policy is documented in `docs/security.md`; the
 * counters live in the instance's key-value store (`storage.kv`).
 */
export interface RateLimitOptions {
  /**
   * Failures allowed per (username, client address) within a fixed window starting at the first
   * failure; a success forgets them. Default 5.
   */
  readonly maxFailuresPerUsername?: number;
  /**
   * Failures allowed per client address (all usernames together) within a sliding window of
   * `windowSeconds`. Only failures count: successful logins refund their own attempt and nothing
   * more. Default 50.
   */
  readonly maxFailuresPerAddress?: number;
  /** Window length. Default 900 (15 minutes). */
  readonly windowSeconds?: number;
  /**
   * How to find the client address of a request. Default: the address the adapter recorded with
   * `setClientAddress` of `@gatehousejs/core/adapter` (the socket address, honouring the framework's proxy settings). IPv6
   * addresses are counted by their /64 network. Requests without an address share one "unknown
   * address" bucket, limited like a single address. `request` is a platform `Request`.
   */
  readonly clientAddress?: (request: Request) => string | undefined;
}

/**
 * Options of the bound on password checks in flight on this instance (one queue per
 * `createGatehouse` instance; Gatehouse never spreads checks over processes). A check beyond
 * `maxConcurrent + maxQueued` is not started: the login page shows the form again and the Auth API
 * answers, both with 503 `temporarily_unavailable` and `Retry-After: 1`, charging no attempt. So a
 * legitimate login waits behind at most `maxConcurrent + maxQueued` checks, or is asked to retry.
 */
export interface PasswordCheckOptions {
  /**
   * Password checks (`users.verifyPassword`) running at once. Default 4: Node hashes on libuv's four
   * worker threads, and more at once only share the same cores.
   */
  readonly maxConcurrent?: number;
  /**
   * Checks allowed to wait for a place, first come, first served; 0 refuses every check beyond
   * `maxConcurrent`. A waiting check whose client goes away leaves the line unchecked. Default 32.
   */
  readonly maxQueued?: number;
}

/** Options of CORS. */
export interface CorsOptions {
  /**
   * Origins (scheme://host[:port], exact) allowed to call with credentials, in addition to the
   * issuer's own origin and each client's `allowedOrigins`.
   */
  readonly allowedOrigins?: readonly string[];
  /** `Access-Control-Max-Age` of preflight answers. Default 600. */
  readonly maxAgeSeconds?: number;
}

/**
 * The HTML pages: their wording and branding, and replacements for any of them. Every page is
 * replaceable on its own (a host replacing the login page keeps the built-in consent, logout and
 * error pages); every renderer receives the wording below in its model's `texts`. Every string is
 * shown HTML-escaped by the built-in pages.
 */
export interface UiOptions {
  /** The product's name, shown at the top of every built-in page (as the logo's text when there is a logo) and in the title. */
  readonly productName?: string;
  /**
   * The logo shown at the top of every built-in page: a path on the instance's origin (`/logo.svg`),
   * a `data:image/…` URL, or an https URL on another origin (added to the pages' CSP `img-src`).
   */
  readonly logoUrl?: string;
  /**
   * Label of the login form's username field, e.g. `'Email address'` when users sign in by email.
   * Default `'Username'`. (Shortcut for `texts.usernameLabel`, which it overrides.)
   */
  readonly usernameLabel?: string;
  /**
   * What granting each scope allows, in words, shown on the consent page instead of the scope
   * string (e.g. `{ 'tickets:read': 'Read your tickets' }`). Added to, and able to override, the
   * built-in descriptions of the OpenID Connect scopes; a scope without one is shown by name.
   */
  readonly scopeDescriptions?: Readonly<Record<string, string>>;
  /** The rest of the built-in pages' English wording (each at most 500 characters). */
  readonly texts?: UiTexts;
  /**
   * The message catalog by language (BCP 47 tag, e.g. `fr`, `de`, `pt-br`): texts that replace the
   * built-in ones of that language (`en` and `fr` are built in) or add a language. A page is shown in
   * the first language of the request's `ui_locales`, then of the browser's `Accept-Language`, that
   * the catalog has; texts a language lacks come from English. `{client}`, `{host}`, `{user}`,
   * `{date}`, `{allow}` and `{deny}` are filled in (the console's texts also `{kid}`, `{ms}`,
   * `{error}`, `{total}` and `{parts}`). The device verification, connected apps and console pages
   * follow `Accept-Language`.
   */
  readonly messages?: Readonly<Record<string, UiTexts>>;
  /**
   * Sources the pages may load besides their own (the Content-Security-Policy stays on: nothing else
   * loads, no framing, forms only to the instance and the client): `'self'` or https origins
   * (`https://fonts.example.com`) per kind, e.g. `{ styles: ['https://cdn.example.com'], fonts: [...] }`
   * for a host's renderer that links its CSS and fonts. Scripts only by origin; no `unsafe-inline`.
   */
  readonly contentSecurityPolicy?: PageSourceOptions;
  /** Replaces the login page. */
  readonly renderLogin?: LoginPageRenderer;
  /** Replaces the consent page. */
  readonly renderConsent?: ConsentPageRenderer;
  /** Replaces the logout page. */
  readonly renderLogout?: LogoutPageRenderer;
  /** Replaces the confirmation of an RP-initiated logout (OpenID Connect `end_session_endpoint`). */
  readonly renderEndSession?: EndSessionPageRenderer;
  /**
   * Replaces the error page. Its model has the error code, a plain-words `explanation` of it, the
   * request's `description` (for a 5xx the explanation again: never internals) and the status.
   */
  readonly renderError?: ErrorPageRenderer;
}

/** What the pages may load from elsewhere (`ui.contentSecurityPolicy`). Each: `'self'` or https origins. */
export interface PageSourceOptions {
  /** Stylesheets (`style-src`, besides the built-in inline style). */
  readonly styles?: readonly string[];
  /** Fonts (`font-src`). */
  readonly fonts?: readonly string[];
  /** Scripts (`script-src`). */
  readonly scripts?: readonly string[];
  /** Images (`img-src`, besides the instance, `data:` and the logo's origin). */
  readonly images?: readonly string[];
  /** Fetches of the pages' scripts (`connect-src`). */
  readonly connect?: readonly string[];
}

/** Wording of the built-in pages (English by default). */
export interface UiTexts {
  /** Label of the login form's username field. Default `'Username'`. */
  readonly usernameLabel?: string;
  /** Label of the login form's password field. Default `'Password'`. */
  readonly passwordLabel?: string;
  /** Heading (and title) of the login page. Default `'Sign in'`. */
  readonly signInTitle?: string;
  /** The login form's button. Default `'Sign in'`. */
  readonly signInButton?: string;
  /** Heading (and title) of the consent page. Default `'Allow access?'`. */
  readonly consentTitle?: string;
  /** The consent form's allow button. Default `'Allow'`. */
  readonly allowButton?: string;
  /** The consent form's deny button. Default `'Deny'`. */
  readonly denyButton?: string;
  /** Heading (and title) of the error page. Default `'Something went wrong'`. */
  readonly errorTitle?: string;
  /** Under the login heading. Default `'to continue to {client}'`. */
  readonly continueTo?: string;
  /** Consent page. Default `'{client} wants to act on your behalf.'`. */
  readonly wantsToAct?: string;
  /** Consent page, before the scopes. Default `'It asks for:'`. */
  readonly asksFor?: string;
  /** Consent page without scopes. Default `'It asks for access to your account.'`. */
  readonly asksForAccount?: string;
  /** Consent page, before the resources. Default `'At:'`. */
  readonly resourcesAt?: string;
  /** Consent page, before the authorization details (RFC 9396). Default `'In detail:'`. */
  readonly detailsAsked?: string;
  /** Consent page. Default `'You will be sent back to {host}.'`. */
  readonly sentBackTo?: string;
  /** Consent page. Default `'Signed in as {user}.'`. */
  readonly signedInAs?: string;
  /** Login failure `invalid_credentials`. Default `'The username or password is incorrect.'`. */
  readonly loginInvalidCredentials?: string;
  /** Login failure `missing_credentials`. Default `'Enter your username and password.'`. */
  readonly loginMissingCredentials?: string;
  /** Login failure `rate_limited`. Default `'Too many failed attempts. Wait a while, then try again.'`. */
  readonly loginRateLimited?: string;
  /** Login failure `busy`. Default `'The server is busy. Try again in a moment.'`. */
  readonly loginBusy?: string;
  /** Login failure `form_expired`. Default `'The form has expired or was not sent by this site. Reload the page and try again.'`. */
  readonly loginFormExpired?: string;
  /** Login and consent pages, for a self-registered client. Default `'This application registered itself; its name is its own claim, not checked by this site.'`. */
  readonly selfRegistered?: string;
  /** The same, for a client ID metadata document client ({host}: its `client_id`'s host). Default `'This application registered itself from {host}; its name is its own claim, not checked by this site.'`. */
  readonly selfRegisteredFrom?: string;
  /** Heading (and title) of the device code form. Default `'Connect a device'`. */
  readonly deviceCodeTitle?: string;
  /** Device code form. Default `'Enter the code shown on your device.'`. */
  readonly deviceCodeIntro?: string;
  /** Label of the device code form's `user_code` field. Default `'Code'`. */
  readonly deviceCodeLabel?: string;
  /** The device code form's button. Default `'Continue'`. */
  readonly deviceCodeButton?: string;
  /** Device code form: a wrong, expired or used code. Default `'That code is not valid, has expired or was already used. Check the code on your device.'`. */
  readonly deviceCodeInvalid?: string;
  /** Device code form: not a code. Default `'Enter the 8-letter code shown on your device (like BCDF-GHJK).'`. */
  readonly deviceCodeMalformed?: string;
  /** Heading (and title) of the device confirmation page. Default `'Connect a device?'`. */
  readonly deviceConfirmTitle?: string;
  /** Device confirmation page. Default `'{client} on a device wants to act on your behalf.'`. */
  readonly deviceWantsToAct?: string;
  /** Device confirmation page, before the code. Default `'Check that this is the code shown on your device:'`. */
  readonly deviceCompareCode?: string;
  /** Device confirmation page ({deny}: the deny button's text). Default `'If it is not, or you did not start this sign-in yourself, choose {deny}.'`. */
  readonly deviceDenyHint?: string;
  /** Device confirmation posted without a decision. Default `'Choose {allow} or {deny}.'`. */
  readonly deviceChooseDecision?: string;
  /** Heading of the page after the device was allowed. Default `'Device connected'`. */
  readonly deviceApprovedTitle?: string;
  /** Page after the device was allowed. Default `'The device is signed in. You can close this page and return to your device.'`. */
  readonly deviceApprovedText?: string;
  /** Heading of the page after the device was denied. Default `'Access denied'`. */
  readonly deviceDeniedTitle?: string;
  /** Page after the device was denied. Default `'The device was not given access. You can close this page.'`. */
  readonly deviceDeniedText?: string;
  /** Heading (and title) of the connected apps page. Default `'Connected apps'`. */
  readonly appsTitle?: string;
  /** Connected apps page, above the list. Default `'These applications can access your account. Revoke access for any you no longer use.'`. */
  readonly appsIntro?: string;
  /** Connected apps page without any. Default `'No application holds access to your account.'`. */
  readonly appsNone?: string;
  /** Connected apps page, before an application's scopes. Default `'Access:'`. */
  readonly appsAccess?: string;
  /** Connected apps page ({date}: when the user first allowed it). Default `'Connected since {date}'`. */
  readonly appsSince?: string;
  /** Connected apps page ({date}: when it last got tokens). Default `'Last used {date}'`. */
  readonly appsLastUsed?: string;
  /** The button that revokes an application's access. Default `'Revoke access'`. */
  readonly appsRevokeButton?: string;
  /** After a revocation ({client}: the application). Default `'{client} no longer has access to your account.'`. */
  readonly appsRevoked?: string;
  /** After a revocation of an application that held no access any more. Default `'That application no longer had access.'`. */
  readonly appsNothingToRevoke?: string;
  /** Operations console: its name, in every page's title. Default `'Operations console'`. */
  readonly consoleTitle?: string;
  /** Operations console: the label of its navigation. Default `'Console sections'`. */
  readonly consoleNav?: string;
  /** Operations console: the overview section (health, charts). Default `'Overview'`. */
  readonly consoleOverview?: string;
  /** Operations console: the signing keys section. Default `'Signing keys'`. */
  readonly consoleKeys?: string;
  /** Operations console: the clients section. Default `'Clients'`. */
  readonly consoleClients?: string;
  /** Operations console: the users section. Default `'Users'`. */
  readonly consoleUsers?: string;
  /** Operations console: the audit trail section. Default `'Audit trail'`. */
  readonly consoleAudit?: string;
  /** Operations console: the sign-out button. Default `'Sign out of the console'`. */
  readonly consoleSignOut?: string;
  /** Operations console: a signed-in user the host does not designate. Default `'Your account is not allowed to use the operations console.'`. */
  readonly consoleRefused?: string;
  /** Operations console: the admin API refused an action ({error}: its error code). Default `'The admin API refused the request: {error}.'`. */
  readonly consoleApiError?: string;
  /** Operations console: a sign-in callback without its pending sign-in. Default `'The sign-in to the console has expired or was started elsewhere. Open the console again.'`. */
  readonly consoleSignInExpired?: string;
  /** Operations console: the health heading. Default `'Health'`. */
  readonly consoleHealth?: string;
  /** Operations console: health `ok`. Default `'Everything is working.'`. */
  readonly consoleStatusOk?: string;
  /** Operations console: health `degraded`. Default `'Degraded: check the storage engine and the revocation channel.'`. */
  readonly consoleStatusDegraded?: string;
  /** Operations console: the storage engine's line of the health. Default `'Storage engine'`. */
  readonly consoleEngine?: string;
  /** Operations console: the engine answers ({ms}: its latency). Default `'reachable, {ms} ms'`. */
  readonly consoleReachable?: string;
  /** Operations console: the engine does not answer. Default `'unreachable'`. */
  readonly consoleUnreachable?: string;
  /** Operations console: the pushed revocations channel's lag. Default `'Revocation channel lag'`. */
  readonly consoleRevocationLag?: string;
  /** Operations console: a part that is off (no pushed revocations). Default `'not used'`. */
  readonly consoleNotUsed?: string;
  /** Operations console: the key that signs now. Default `'Signing key'`. */
  readonly consoleSigningKey?: string;
  /** Operations console: the chart of tokens issued per grant type. Default `'Tokens issued per grant type, last hour'`. */
  readonly consoleTokensChart?: string;
  /** Operations console: the chart of refusals by reason. Default `'Refusals by reason, last hour'`. */
  readonly consoleRefusalsChart?: string;
  /** Operations console: a chart's text alternative ({total}: the hour's total; {parts}: per series). Default `'{total} in the last hour: {parts}.'`. */
  readonly consoleChartTotal?: string;
  /** Operations console: an empty chart. Default `'Nothing in the last hour.'`. */
  readonly consoleNoData?: string;
  /** Operations console: keys table, the key id column. Default `'Key id'`. */
  readonly consoleKid?: string;
  /** Operations console: keys table, the algorithm column. Default `'Algorithm'`. */
  readonly consoleAlgorithm?: string;
  /** Operations console: keys table, the state column. Default `'State'`. */
  readonly consoleState?: string;
  /** Operations console: a since-when column. Default `'Since'`. */
  readonly consoleSince?: string;
  /** Operations console: an until-when column. Default `'Until'`. */
  readonly consoleUntil?: string;
  /** Operations console: key state `next`. Default `'next'`. */
  readonly consoleStateNext?: string;
  /** Operations console: key state `signing`. Default `'signing'`. */
  readonly consoleStateSigning?: string;
  /** Operations console: key state `retired`. Default `'retired'`. */
  readonly consoleStateRetired?: string;
  /** Operations console: key state `revoked`. Default `'revoked'`. */
  readonly consoleStateRevoked?: string;
  /** Operations console: before the sentence saying why the signing key signs. Default `'Why this key signs:'`. */
  readonly consoleWhy?: string;
  /** Operations console: the keys' timeline. Default `'Key timeline'`. */
  readonly consoleTimeline?: string;
  /** Operations console: the rotate button. Default `'Rotate keys'`. */
  readonly consoleRotate?: string;
  /** Operations console: the rotate form's checkbox (what signing at once costs). Default `'Sign with the new key at once (relying parties that cached the key set refuse its tokens until they fetch it again)'`. */
  readonly consoleRotateNow?: string;
  /** Operations console: a revoke button. Default `'Revoke'`. */
  readonly consoleRevoke?: string;
  /** Operations console: after a rotation. Default `'Keys rotated.'`. */
  readonly consoleRotated?: string;
  /** Operations console: after a key's revocation ({kid}). Default `'Key {kid} revoked.'`. */
  readonly consoleKeyRevoked?: string;
  /** Operations console: clients table, the id column. Default `'Client id'`. */
  readonly consoleClientId?: string;
  /** Operations console: a name column. Default `'Name'`. */
  readonly consoleName?: string;
  /** Operations console: clients table, where a client comes from. Default `'Origin'`. */
  readonly consoleOrigin?: string;
  /** Operations console: clients table, the grant types column. Default `'Grant types'`. */
  readonly consoleGrantTypes?: string;
  /** Operations console: a creation time column. Default `'Created'`. */
  readonly consoleCreated?: string;
  /** Operations console: the mark of a self-registered client. Default `'self-registered'`. */
  readonly consoleSelfRegistered?: string;
  /** Operations console: a client the host configured. Default `'configured by the host'`. */
  readonly consoleHostClient?: string;
  /** Operations console: the delete button of a self-registered client. Default `'Delete'`. */
  readonly consoleDelete?: string;
  /** Operations console: after a client's deletion ({client}). Default `'Client {client} deleted.'`. */
  readonly consoleClientDeleted?: string;
  /** Operations console: the user search field. Default `'User id or username'`. */
  readonly consoleSearchLabel?: string;
  /** Operations console: the user search button. Default `'Search'`. */
  readonly consoleSearch?: string;
  /** Operations console: a search without results. Default `'No user found.'`. */
  readonly consoleNoUsers?: string;
  /** Operations console: a user's sessions. Default `'Sessions'`. */
  readonly consoleSessions?: string;
  /** Operations console: a user's grants. Default `'Grants'`. */
  readonly consoleGrants?: string;
  /** Operations console: a user without sessions. Default `'No live session.'`. */
  readonly consoleNoSessions?: string;
  /** Operations console: a user without grants. Default `'No live grant.'`. */
  readonly consoleNoGrants?: string;
  /** Operations console: sessions table, the last activity column. Default `'Last seen'`. */
  readonly consoleLastSeen?: string;
  /** Operations console: an expiry column. Default `'Ends'`. */
  readonly consoleEnds?: string;
  /** Operations console: grants table, the scope column. Default `'Scope'`. */
  readonly consoleScope?: string;
  /** Operations console: grants table, the last use column. Default `'Last used'`. */
  readonly consoleLastUsed?: string;
  /** Operations console: the button that revokes everything of a user. Default `"Revoke all of this user's sessions and tokens"`. */
  readonly consoleRevokeUser?: string;
  /** Operations console: after a session's revocation. Default `'Session revoked.'`. */
  readonly consoleSessionRevoked?: string;
  /** Operations console: after a grant's revocation. Default `'Grant revoked: its refresh tokens and access tokens no longer work.'`. */
  readonly consoleGrantRevoked?: string;
  /** Operations console: after a user's revocation. Default `'Everything issued to the user so far is revoked.'`. */
  readonly consoleUserRevoked?: string;
  /** Operations console: the audit filter button. Default `'Filter'`. */
  readonly consoleFilter?: string;
  /** Operations console: audit filter and column, the event type. Default `'Event type'`. */
  readonly consoleEventType?: string;
  /** Operations console: audit filter and column, the subject. Default `'Subject'`. */
  readonly consoleSubject?: string;
  /** Operations console: audit filter, how many records. Default `'At most'`. */
  readonly consoleLimit?: string;
  /** Operations console: audit column, the time. Default `'Time'`. */
  readonly consoleTime?: string;
  /** Operations console: audit column, success or failure (and why). Default `'Outcome'`. */
  readonly consoleOutcome?: string;
  /** Operations console: audit column, the rest of the record. Default `'Details'`. */
  readonly consoleDetails?: string;
  /** Operations console: an audit trail without matching records. Default `'No record matches.'`. */
  readonly consoleNoRecords?: string;
  /** Operations console: a table's actions column. Default `'Actions'`. */
  readonly consoleActions?: string;
  /** Operations console: the present on the charts' time axes. Default `'now'`. */
  readonly consoleNow?: string;
  /** Operations console: a user's details heading ({user}). Default `'User {user}'`. */
  readonly consoleUser?: string;
  /** Operations console: who is signed in ({user}). Default `'Signed in as {user}'`. */
  readonly consoleSignedInAs?: string;
  /** Operations console: the empty choice of a filter. Default `'all'`. */
  readonly consoleAll?: string;
  /** Title of the approval page of backchannel authentication requests (CIBA). */
  readonly approvalsTitle?: string;
  /** What the approval page is for. */
  readonly approvalsIntro?: string;
  /** The approval page without a pending request. */
  readonly approvalsEmpty?: string;
  /** The label of a request's binding message (compare it with the application's). */
  readonly approvalsBindingMessage?: string;
  /** After "Allow". */
  readonly approvalsAllowed?: string;
  /** After "Deny". */
  readonly approvalsDenied?: string;
  /** A request expired or decided meanwhile. */
  readonly approvalsGone?: string;
}

/**
 * Options of the admin API (`admin`). Its tokens are the instance's own access tokens (Bearer or
 * DPoP-bound), checked as every protected operation checks them; the scope says what the token may
 * do, the hook who may hold it.
 */
export interface AdminOptions {
  /** The scope an access token must carry to call the admin API. Default `'gatehouse:admin'`. */
  readonly scope?: string;
  /**
   * Whether this caller (a user signed in through a client, or a client acting for itself) may
   * administer the instance: `({ subject, clientId, scope }) => boolean`, given the
   * {@link Caller} the token check found (as `gatehouse.authenticate` gives it). Asked on every
   * call, after the token and its scope were checked; a throw or rejection refuses (and is logged).
   * Required: there is no default caller.
   */
  readonly authorize: (caller: Caller) => Awaitable<boolean>;
  /**
   * Finds users for the admin API's user search (`GET /users?q=`), e.g. by username or e-mail, at
   * most 50 of them. Default: the user whose id is `q` (`users.findUser`).
   */
  readonly findUsers?: (query: string) => Awaitable<readonly UserRecord[]>;
}

/**
 * Options of RFC 7591 dynamic client registration. Anyone who can reach the endpoint may register
 * (unless {@link initialAccessToken} is set), so everything a registration stores is bounded: the
 * request body (`maxBodyBytes`), the registrations per address and window, and the lifetime of
 * registrations nobody uses.
 */
export interface DynamicRegistrationOptions {
  /**
   * Lets clients register as confidential (`token_endpoint_auth_method` `client_secret_basic` or
   * `client_secret_post`; they receive a `client_secret`). Default `false`: only public clients
   * (`none`, PKCE S256), which is what a client omitting the method gets either way.
   */
  readonly allowConfidential?: boolean;
  /**
   * A bearer token the registration request must carry (RFC 7591 §3, "initial access token"),
   * compared in constant time; without it registration is open. Generate it like a client secret.
   */
  readonly initialAccessToken?: string;
  /**
   * Seconds after which a registration nobody used lapses; each use (an authorization or token
   * request naming the client) moves the deadline again. Default 2,592,000 (30 days).
   */
  readonly unusedTtl?: number;
  /** Registrations accepted per client address (IPv6: per /64) and window. Default 10. */
  readonly maxPerAddress?: number;
  /** The window of {@link maxPerAddress}, in seconds. Default 3600. */
  readonly windowSeconds?: number;
  /**
   * Most live registrations of the instance, on every engine; a new registration beyond it is
   * answered 503 `temporarily_unavailable` with `Retry-After` until some lapse or are deleted.
   * 1 to 10,000,000. Default 10,000.
   */
  readonly maxClients?: number;
}

/**
 * The bounds of fetching documents a request names by URL (`clientMetadataDocuments`,
 * `clientJwks`): each kind has its own in-process cache and its own budgets.
 */
export interface FetchBudgetOptions {
  /** Fetches in flight at once on this instance (one outbound connection each); beyond it: 503. 1 to 1024. Default 16. */
  readonly maxConcurrentFetches?: number;
  /**
   * Fetches in flight at once to one origin (scheme, host and port), so that one slow host cannot
   * take every slot; beyond it: 503. 1 to `maxConcurrentFetches`. Default 4.
   */
  readonly maxConcurrentFetchesPerOrigin?: number;
  /**
   * Fetches one client address (IPv6: one /64) may cause per {@link fetchWindowSeconds}; beyond
   * it: 429 `too_many_requests` with `Retry-After`. Only fetches count: a document or key set
   * already cached costs nothing. 1 to 1,000,000. Default 30.
   */
  readonly maxFetchesPerAddress?: number;
  /** The window of {@link maxFetchesPerAddress}, in seconds, 1 to 86,400. Default 600. */
  readonly fetchWindowSeconds?: number;
  /**
   * Estimated bytes of memory the cache of fetched documents may take; the least recently used
   * go first. 65,536 to 1,073,741,824. Default 8,388,608 (8 MiB).
   */
  readonly maxCacheBytes?: number;
}

/**
 * Options of the device authorization grant (RFC 8628). The bounds and the chance of guessing a
 * user code they give are in `docs/security.md` ("Guessing device user codes").
 */
export interface DeviceAuthorizationOptions {
  /**
   * Seconds a device code and its user code live (`expires_in`), and the window of the limits
   * below. Default 600. From 60 to 1800.
   */
  readonly codeLifetimeSeconds?: number;
  /** The polling interval devices start with (`interval`), in seconds. Default 5. From 1 to 60. */
  readonly pollIntervalSeconds?: number;
  /**
   * Lookups of typed user codes one client network (IPv6: its /64) may make per window on the
   * verification page, found or not (a person approving a device makes two or three). Default 20.
   */
  readonly maxLookupsPerAddress?: number;
  /**
   * Lookups that found no code, all client networks together, per window: past it every address
   * gets 429 until the window ends. Default 1,000 (at most 2,000 wrong guesses in a code's
   * lifetime: a given code is guessed with a chance below 7.8 × 10⁻⁸). Raise it with care.
   */
  readonly maxFailedLookups?: number;
  /**
   * Device authorizations one client network may start per window with a public client (which
   * proves no identity: each stores a record until it expires). Default 30.
   */
  readonly maxPublicRequestsPerAddress?: number;
}

/**
 * A backchannel authentication request (CIBA) the user's authentication device should be told of:
 * what {@link CibaOptions.notify} receives. It carries no secret: `requestId` is what the approval
 * page and `gatehouse.ciba.approve` / `deny` take, never the client's `auth_req_id`.
 */
export interface CibaNotification {
  /** The user the request is for (`login_hint` or `id_token_hint`, resolved). */
  readonly user: { readonly id: string };
  /** The client asking. `name` defaults to the id. */
  readonly client: { readonly id: string; readonly name: string };
  /** The `binding_message` to show on the device, identical to the one the client shows. */
  readonly bindingMessage?: string;
  /** The scopes asked for. */
  readonly scopes: readonly string[];
  /**
   * The request's handle for `gatehouse.ciba.approve(userId, requestId)` / `deny`, and on the
   * approval page (128 random bits; it approves nothing without the user's session or the host).
   */
  readonly requestId: string;
  /** RFC 9396 `authorization_details`, when the request carries them (else absent). */
  readonly authorizationDetails?: readonly AuthorizationDetail[];
  /** The absolute URL of the approval page (`{base}/approvals`), for a link in the notification. */
  readonly approvalUrl: string;
  /** When the request expires (epoch milliseconds). */
  readonly expiresAt: number;
}

/**
 * Options of CIBA (OpenID Client-Initiated Backchannel Authentication Core 1.0). The bounds on what
 * clients can make the server store and send are in `docs/security.md` ("Backchannel authentication").
 */
export interface CibaOptions {
  /**
   * Tells the user's authentication device of a new request (a push notification, a message):
   * called once per request, after it is stored. It may be slow (at most `notifyTimeoutMs` is
   * awaited); a failure is logged and leaves the request pending (the user can still approve it on
   * the approval page). Default: none (the approval page alone).
   */
  readonly notify?: (request: CibaNotification) => Awaitable<void>;
  /**
   * The user a `login_hint` names: their user id, or `null` for none (the client gets
   * `unknown_user_id`). Default: the hint is a user id (`users.findUser(hint)`).
   */
  readonly resolveLoginHint?: (hint: string, client: { readonly id: string }) => Awaitable<string | null>;
  /** The token delivery modes clients may register (CIBA §5). Default `['poll', 'ping']`. */
  readonly deliveryModes?: readonly ('poll' | 'ping')[];
  /** Seconds a request lives without `requested_expiry` (`expires_in`). Default 300. From 30 to 3600. */
  readonly requestLifetimeSeconds?: number;
  /**
   * Longest lifetime a client may ask with `requested_expiry`, in seconds; longer asks get this.
   * Default 1800. From `requestLifetimeSeconds` to 3600.
   */
  readonly maxRequestLifetimeSeconds?: number;
  /** The polling interval clients start with (`interval`), in seconds. Default 5. From 1 to 60. */
  readonly pollIntervalSeconds?: number;
  /**
   * Requests one client may start per `maxRequestLifetimeSeconds` window (a self-registered client:
   * its caller's network). Each stores a record until it expires. Default 100.
   */
  readonly maxRequestsPerClient?: number;
  /**
   * Requests pending at once for one user, all clients together: a further request for the user is
   * refused (429) until one is decided or expires. Default 10.
   */
  readonly maxPendingPerUser?: number;
  /**
   * Notifications of one user's device (`notify`) per `maxRequestLifetimeSeconds` window, all
   * clients together: past it, new requests for the user are refused (429). Default 20.
   */
  readonly maxNotificationsPerUser?: number;
  /** Deadline of the `notify` hook, in milliseconds, 100 to 30,000. Default 5000. */
  readonly notifyTimeoutMs?: number;
  /** The ping callback to clients' notification endpoints (CIBA §10.2). */
  readonly ping?: CibaPingOptions;
}

/**
 * Options of the ping mode's callback: a POST of `{"auth_req_id": …}` to the client's
 * `backchannel_client_notification_endpoint`, with its `client_notification_token` as bearer,
 * through the guarded fetch (`http/guarded-fetch.ts`: https, no private addresses, no redirects,
 * a deadline), retried with backoff in the background.
 */
export interface CibaPingOptions {
  /**
   * Carries the POST. Default on Node.js: the address-checking transport, which refuses host names
   * resolving to private addresses; elsewhere the runtime's `fetch` (names are the platform's).
   */
  readonly fetch?: OutboundFetch;
  /**
   * Accepts `http://` notification endpoints on a loopback host and lets the POST reach loopback
   * addresses. A development setting; never in production. Default `false`.
   */
  readonly allowLoopback?: boolean;
  /** Deadline of one attempt, in milliseconds, 100 to 30,000. Default 3000. */
  readonly timeoutMs?: number;
  /** Attempts in all (the first and its retries, 1 s, 2 s, 4 s … apart), 1 to 6. Default 3. */
  readonly attempts?: number;
}

/**
 * Options of client ID metadata documents. The fetch is guarded (`http/guarded-fetch.ts`): https
 * only, no private, link-local or unique-local addresses, no redirects, a size cap and a deadline;
 * documents are kept in a bounded in-process cache (never in `storage`) for their HTTP cache
 * lifetime, within bounds, and each fetch is charged to the caller's address
 * ({@link FetchBudgetOptions}).
 */
export interface ClientMetadataDocumentOptions extends FetchBudgetOptions {
  /**
   * Carries the fetch. Default on Node.js: the address-checking transport (what
   * `addressCheckingFetch()` of `@gatehousejs/core/node` returns), which refuses host names
   * resolving to private addresses, checked at connection time. On other runtimes: the runtime's
   * `fetch`, which refuses IP-literal private targets but trusts the platform's resolver and
   * egress rules for names (`createGatehouse` warns once).
   */
  readonly fetch?: OutboundFetch;
  /**
   * Accepts `http://` client ids on a loopback host (`localhost`, `127.0.0.1`, `[::1]`) and lets the
   * fetch reach loopback addresses. A development setting, for documents served on the same
   * machine; never in production. Default `false`.
   */
  readonly allowLoopback?: boolean;
  /** Largest document accepted, in bytes. Default 16,384 (the draft suggests 5 KB; real documents are larger). */
  readonly maxBytes?: number;
  /** Deadline of one fetch (connection, headers and body), in milliseconds. Default 3000. */
  readonly timeoutMs?: number;
  /**
   * Shortest time a fetched document is kept, whatever its caching headers say, and how long it
   * is kept after its last use (an unused document never stays its `max-age`). Default 300.
   */
  readonly minCacheSeconds?: number;
  /** Longest time a fetched document is kept (its `max-age` or `Expires`, at most this). Default 86,400. */
  readonly maxCacheSeconds?: number;
}

/**
 * Options of OpenID Connect Back-Channel Logout 1.0. Each logout request goes through the guarded
 * outbound fetch (`http/guarded-fetch.ts`): https only, no redirects, a deadline; a self-registered
 * client's URI must reach a public address (a host's client may name any address, the host chose
 * it). The bounds are in `docs/security.md` ("Back-channel logout").
 */
export interface BackchannelLogoutOptions {
  /**
   * Carries each logout request. Default on Node.js: the address-checking transport (what
   * `addressCheckingFetch()` of `@gatehousejs/core/node` returns), which refuses host names
   * resolving to private addresses, checked at connection time. On other runtimes: the runtime's
   * `fetch`, which refuses IP-literal private targets but trusts the platform's resolver and
   * egress rules for names.
   */
  readonly fetch?: OutboundFetch;
  /**
   * Lets self-registered clients (RFC 7591) register `http://` back-channel logout URIs on a
   * loopback host (`localhost`, `127.0.0.1`, `[::1]`) and lets the logout requests reach loopback
   * addresses. A development setting, for relying parties on the same machine; never in
   * production. Default `false`.
   */
  readonly allowLoopback?: boolean;
  /** Deadline of one logout request (connection, answer), in milliseconds, 100 to 30,000. Default 5000. */
  readonly timeoutMs?: number;
  /**
   * Attempts of one logout request, the first included, 1 to 10: a network failure, a timeout, a
   * 5xx or a 429 is retried; any other answer but 200 and 204 is final. Default 5.
   */
  readonly maxAttempts?: number;
  /**
   * Wait before the first retry, in milliseconds (10 to 600,000); each further retry waits twice as
   * long as the one before. Default 2000 (then 4, 8 and 16 s).
   */
  readonly retryDelayMs?: number;
  /** Logout requests in flight at once on this instance (one outbound connection each), 1 to 1024. Default 8. */
  readonly maxConcurrentDeliveries?: number;
  /**
   * Logout requests waiting or in flight for one client, 1 to 100,000: beyond it, new ones for that
   * client are dropped (audited `backchannel_logout.abandoned`, reason `queue_full`), others are
   * not affected. Default 100.
   */
  readonly maxQueuedPerClient?: number;
  /**
   * Logout requests waiting or in flight on this instance, all clients together, from
   * `maxQueuedPerClient` to 1,000,000. Default 10,000.
   */
  readonly maxQueued?: number;
  /**
   * Lifetime of a logout token (`exp` - `iat`), in seconds, 10 to 600. Default 120 (the
   * specification's §4 advice: at most two minutes). Each attempt signs a new token.
   */
  readonly logoutTokenTtl?: number;
  /**
   * Clients remembered per session, 1 to 256: past it, the client that received tokens longest ago
   * is forgotten (it gets no logout token). Default 32.
   */
  readonly maxClientsPerSession?: number;
  /**
   * Keeps the logout requests alive after the user's answer was sent, on runtimes that stop a
   * request's work then (Cloudflare Workers: `waitUntil` of `cloudflare:workers`; Vercel:
   * `waitUntil` of `@vercel/functions`). Called with the work of each ended session. Default: none
   * (a long-running server needs none).
   */
  readonly waitUntil?: (work: Promise<unknown>) => void;
}

/**
 * Options of fetching clients' `jwks_uri` key sets (`private_key_jwt`). The fetch is the same
 * guarded fetch as for client ID metadata documents (`http/guarded-fetch.ts`): https only, no
 * private, link-local or unique-local addresses, no redirects, a size cap and a deadline.
 */
export interface ClientJwksOptions extends FetchBudgetOptions {
  /**
   * Carries the fetch. Default on Node.js: the address-checking transport (what
   * `addressCheckingFetch()` of `@gatehousejs/core/node` returns), which refuses host names
   * resolving to private addresses, checked at connection time. On other runtimes: the runtime's
   * `fetch`, which refuses IP-literal private targets but trusts the platform's resolver and
   * egress rules for names (`createGatehouse` warns once).
   */
  readonly fetch?: OutboundFetch;
  /**
   * Accepts `http://` `jwks_uri`s on a loopback host (`localhost`, `127.0.0.1`, `[::1]`) and lets
   * the fetch reach loopback addresses. A development setting, for key sets served on the same
   * machine; never in production. Default `false`.
   */
  readonly allowLoopback?: boolean;
  /** Deadline of one fetch (connection, headers and body), in milliseconds, 100 to 30,000. Default 5000. */
  readonly timeoutMs?: number;
  /** Largest key set document accepted, in bytes, 256 to 1,048,576. Default 65,536. */
  readonly maxBytes?: number;
  /**
   * How long a fetched key set is used before it is fetched again, in seconds. An assertion signed
   * by a key the cached set lacks fetches the set again (at most once a minute). Default 300.
   */
  readonly cacheSeconds?: number;
}

/**
 * Options of token exchange (RFC 8693). Nothing is exchanged unless the {@link policy} says so, and
 * never for more than it allows.
 */
export interface TokenExchangeOptions {
  /**
   * Decides each exchange, after the client authenticated and the subject (and actor) tokens
   * verified: `null` (or `false`) refuses it (400 `unauthorized_client`); a decision names the
   * most the new token may carry. The requested scope and audience must lie within it (else
   * `invalid_scope` / `invalid_target`); without a request, the decision's own values are used.
   * Called for every request: keep it fast, it is on the token endpoint.
   */
  readonly policy: (request: TokenExchangeRequest) => Awaitable<TokenExchangeDecision | null | false>;
  /**
   * The issuers of the authorization servers this instance issues identity assertion JWT
   * authorization grants for (draft-ietf-oauth-identity-assertion-authz-grant, the MCP
   * enterprise-managed authorization profile): `requested_token_type=urn:ietf:params:oauth:token-type:id-jag`
   * with `audience` one of these. Default: none (ID-JAGs are not issued).
   */
  readonly idJagAudiences?: readonly string[];
  /** Lifetime of an issued ID-JAG, in seconds, 10 to 300. Default 300. */
  readonly idJagTtl?: number;
}

/** What the token exchange policy allows one exchange (each field bounds the new token). */
export interface TokenExchangeDecision {
  /**
   * The scopes the new token may carry (space-separated, or a list). A request asks for some of
   * them (or gets them all when it names none); an access token subject's own scope bounds them
   * too. Default: none.
   */
  readonly scope?: string | readonly string[];
  /**
   * The audiences the new token may be for: resources of this instance (RFC 8707) for an access
   * token, authorization server issuers (one of `idJagAudiences`) for an ID-JAG. A request names
   * some of them with `resource` / `audience`, or gets the first when it names none. Default:
   * the instance's `audience` only (access tokens).
   */
  readonly audience?: readonly string[];
  /**
   * Issue the token without `act`, as if the subject itself had asked (impersonation, RFC 8693
   * §1.1). Only when no `actor_token` was sent. Default `false`: the new token names its actor,
   * the authenticated client when there is no `actor_token`.
   */
  readonly impersonation?: boolean;
  /**
   * The local user the new token is for, when the subject token comes from a trusted issuer (its
   * `sub` is that issuer's, not this instance's); the user must exist. Ignored for this instance's
   * own tokens.
   */
  readonly userId?: string;
  /** For an ID-JAG: the client's id at the audience's authorization server (`client_id` claim). Default: the same id. */
  readonly audienceClientId?: string;
  /**
   * What a DPoP-bound subject token (`cnf.jkt`, RFC 9449 §6.1) needs:
   *
   * - `'require-proof'` (the default): the exchange request carries a DPoP proof of the subject
   *   token's own key (`invalid_request` without one, `invalid_dpop_proof` with another key), and
   *   the new token is bound to that key (`token_type: DPoP`, `cnf.jkt`). Whoever holds the
   *   token but not its key gets nothing, as at a resource server.
   * - `'issue-bearer'`: no proof is needed, and the new token is a Bearer token unless the request
   *   sends a proof (then it is bound to the proof's key). Only for a policy that knows the client
   *   exchanging holds the subject's key or need not: it lifts the sender constraint.
   *
   * Anything else counts as `'require-proof'`.
   */
  readonly dpopBoundSubject?: 'require-proof' | 'issue-bearer';
}

/**
 * An issuer whose JWTs this instance accepts (see {@link GatehouseOptions.trustedIssuers}). Its
 * tokens are verified like `private_key_jwt` assertions: an asymmetric signature by one of its keys,
 * `iss`, a lifetime (with the clock tolerance), and the audience below.
 */
export interface TrustedIssuerOptions {
  /** The `iss` of its tokens, exactly. Not this instance's own issuer. */
  readonly issuer: string;
  /** Where its public keys are published (fetched and cached under the `clientJwks` policy). */
  readonly jwksUri?: string;
  /** Its public keys inline, instead of `jwksUri`. */
  readonly jwks?: { readonly keys: readonly Readonly<Record<string, unknown>>[] };
  /**
   * The `aud` its tokens must name to be exchanged here (`subject_token` / `actor_token`). Default:
   * this instance's issuer. JWT bearer assertions always must name this instance (its issuer or
   * token endpoint, RFC 7523 §3).
   */
  readonly audience?: string;
  /** Accept its JWTs as the `assertion` of the JWT bearer grant (RFC 7523 §2.1), ID-JAGs included. Default `false`. */
  readonly jwtBearer?: boolean;
  /**
   * The JWT `typ` header values (RFC 7515 §4.1.9, compared without case and without an
   * `application/` prefix) its tokens may carry to be exchanged as a `subject_token` or
   * `actor_token` (RFC 8693). A token without `typ` is always accepted. Default `['JWT',
   * 'at+jwt']`: untyped JWTs, ID tokens and RFC 9068 access tokens. Any other explicit `typ` is a
   * JWT made for something else (RFC 8725 §3.11) and refused: an ID-JAG (`oauth-id-jag+jwt`) is
   * redeemed once with the JWT bearer grant, never exchanged again and again; a logout token
   * (`logout+jwt`), a security event (`secevent+jwt`) or a DPoP proof (`dpop+jwt`) speaks for no
   * subject. Those four cannot be listed here.
   */
  readonly exchangeTyps?: readonly string[];
  /**
   * The local user id of one of its subjects (its `sub` and the verified claims), or `null` when
   * there is none: the JWT bearer grant then fails with `invalid_grant`. Default: its `sub`, taken
   * as a local user id. The user must exist.
   */
  readonly userId?: (
    claims: Readonly<Record<string, unknown>>,
    client: ClientRecord,
  ) => Awaitable<string | null>;
}

/** A grant type of the host's (`extensionGrants`, RFC 6749 §4.5). */
export interface ExtensionGrant {
  /** The `grant_type` value: an absolute URI (`urn:example:grant-type:…`, `https://…`), none of Gatehouse's. */
  readonly type: string;
  /**
   * Decides a token request of this type: refuse with an `error` answer. A `handle` that throws
   * (its database is down) is answered 503 `temporarily_unavailable` and logged; an answer of
   * another shape is a logged 500. A `userId` must name a user of the host's user store.
   */
  readonly handle: (
    request: ExtensionGrantRequest,
  ) => ExtensionGrantDecision | Promise<ExtensionGrantDecision>;
}

/** What {@link ExtensionGrant.handle} is asked about: a token request of an authenticated client. */
export interface ExtensionGrantRequest {
  /** The grant type (the `grant_type` parameter). */
  readonly grantType: string;
  /**
   * A parameter of the request's form, `undefined` when absent or empty; a repeated one is refused
   * with `invalid_request` (RFC 6749 §3.2). Client credentials are never among what the host needs.
   */
  readonly parameter: (name: string) => string | undefined;
  /** The client, registered for this grant type; `authenticated` when it proved its identity. */
  readonly client: { readonly id: string; readonly authenticated: boolean };
  /** The scope asked for, within the client's registered scopes (or the instance's default scope). */
  readonly scope: string;
}

/**
 * The answer of {@link ExtensionGrant.handle}: a token for a user (`userId`) or for the client
 * itself (`client: true`), with the scope asked for or a narrower one; or a refusal with an RFC
 * 6749 §5.2 error code (400).
 */
export type ExtensionGrantDecision =
  | { readonly userId: string; readonly scope?: string }
  | { readonly client: true; readonly scope?: string }
  | {
      readonly error: 'invalid_grant' | 'invalid_request' | 'invalid_scope' | 'unauthorized_client';
      readonly description?: string;
    };

/** The `consent` option. */
export interface ConsentOptions {
  /**
   * Called when a user allows a client and asks for it to be remembered (the consent page, or a
   * host's interaction result with `remember: true`): answers what is remembered — a subset of the
   * scopes and resources allowed, for `ttl` seconds (0: nothing, the client asks again next time;
   * at most a year, 31,536,000). Without it, or for what it leaves out: everything, for a year.
   * The grant itself always gets what the user allowed. A hook that throws is answered 503; an
   * answer naming a scope or resource that was not allowed is a logged 500.
   */
  readonly remember?: (consent: ConsentGiven) => ConsentMemory | Promise<ConsentMemory>;
}

/** A consent the user just gave (see {@link ConsentOptions.remember}). */
export interface ConsentGiven {
  readonly userId: string;
  readonly clientId: string;
  /** Whether the host marked the client first-party. */
  readonly firstParty: boolean;
  /** The scopes the user allowed. */
  readonly scopes: readonly string[];
  /** The resources (RFC 8707) the user allowed besides the instance's own API; maybe none. */
  readonly resources: readonly string[];
}

/** What of a consent is remembered (see {@link ConsentOptions.remember}); each member defaults to all. */
export interface ConsentMemory {
  readonly scopes?: readonly string[];
  readonly resources?: readonly string[];
  /** Seconds: 0 remembers nothing; at most 31,536,000 (a year). */
  readonly ttl?: number;
}
