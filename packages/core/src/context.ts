import type { GatehouseEvent, Logger } from './events.js';
import type { ClientJwksCache } from './oauth2/client-auth/client-jwks.js';
import type { TrustedIssuer } from './oauth2/trusted-issuer.js';
import type { PasswordCheckGate } from './passwords/password-check-gate.js';
import type { RecordProblems } from './records/record-problems.js';
import type { RevocationMirror } from './revocation/revocation-mirror.js';
import type { KeyValueStateStores } from './storage/kv/stores.js';
import type { ClientRecord, ClientStore, GatehouseStorage, UserLookup, UserStore } from './storage/types.js';
import type { ClaimsHook } from './tokens/claims-hook.js';
import type { KeySet } from './tokens/keys.js';
import type { RandomBytes } from './tokens/secrets.js';
import type { VerifiedTokenCache } from './tokens/verified-token-cache.js';
import type { ResolvedUi } from './ui/texts.js';

/**
 * The stores handlers use: the instance's storage view (everything but `clear`), and the stores
 * Gatehouse builds on its `kv` (`storage/kv/stores.ts`).
 */
export type InstanceStores = Omit<GatehouseStorage, 'clear'> & KeyValueStateStores;

/**
 * The clients an instance knows (`oauth2/client-directory.ts`). `request`, when the lookup serves one,
 * is who pays for what the lookup costs (a metadata document fetch is charged to its address);
 * without it (an authenticated listing) nothing is charged.
 */
export interface ClientDirectory extends ClientStore {
  findClient(clientId: string, request?: Request): Promise<ClientRecord | null>;
  /** Fetched `jwks_uri` key sets of `private_key_jwt` clients (`clientJwks` option). */
  readonly jwks: ClientJwksCache;
  /** Logs each refused host record (client, user) once. */
  readonly problems: RecordProblems;
  /**
   * Whether an origin other than the issuer's may make credentialed requests: one of
   * `cors.allowedOrigins`, else one a host client registered (`ClientStore.isOriginAllowed`).
   */
  isOriginAllowed(origin: string): Promise<boolean>;
}

/** Where the issuer is: what cookies, same-origin checks and endpoint URLs are derived from. */
export interface IssuerSite {
  /** Origin of the issuer (`https://host:port`). */
  readonly origin: string;
  /** Path of the issuer (`/demo`, or `` for an issuer at the origin root). */
  readonly basePath: string;
  /** Whether the issuer is https (cookies get `Secure`). */
  readonly secure: boolean;
}

/** The instance clock, and the leeway allowed on timestamps from elsewhere. */
export interface InstanceClock {
  /** Epoch milliseconds. */
  readonly now: () => number;
  readonly toleranceSeconds: number;
}

/**
 * What tokens the instance issues and how it accepts them: audiences, scopes, resources, lifetimes
 * (seconds), and the fast path of its access tokens (verified ones cached, revocations mirrored).
 */
export interface TokenPolicy extends AccessTokenAcceptance {
  /** The configured `aud` of access tokens: the host's own API, checked by the bearer scheme. */
  readonly audience: string;
  /** `[audience]`, the audience of tokens whose grant names no resources. */
  readonly audienceList: readonly string[];
  /** The resources (RFC 8707) tokens may be requested for: the `resources` option and the audience. */
  readonly resources: ReadonlySet<string>;
  readonly scopes: ReadonlySet<string> | undefined;
  readonly defaultScope: string;
  readonly accessTokenTtl: number;
  readonly refreshTokenTtl: number;
  readonly authorizationCodeTtl: number;
  readonly rotateRefreshTokens: boolean;
  readonly requirePkce: 'public' | 'all';
  /** The host's claims hook (`claims` option), if any. */
  readonly claims: ClaimsHook | undefined;
  /** Other issuers whose JWTs are accepted (`trustedIssuers`), by `iss`. */
  readonly trustedIssuers: ReadonlyMap<string, TrustedIssuer>;
  /**
   * The longest lifetime of anything the instance issues: access tokens of both families, refresh
   * tokens, codes and sessions (how long a user's revocation mark must be kept).
   */
  readonly longestLifetime: number;
}

/** The bounds on what one request may make the instance read or compute. */
export interface RequestLimits {
  readonly maxBodyBytes: number;
  readonly rateLimit: {
    readonly maxFailuresPerUsername: number;
    readonly maxFailuresPerAddress: number;
    readonly windowSeconds: number;
    readonly clientAddress: (request: Request) => string | undefined;
  };
  /** The bound on password checks in flight on this instance. */
  readonly passwordChecks: PasswordCheckGate;
}

/** The security profile the instance follows (`securityProfile`). */
export interface SecurityProfile {
  readonly securityProfile: 'fapi2' | undefined;
  /**
   * Only confidential clients (`securityProfile: 'fapi2-strict'`, FAPI 2.0 Security Profile
   * §5.3.2.1): public clients are refused wherever a client authenticates, and registration makes
   * none.
   */
  readonly confidentialClientsOnly: boolean;
}

/** How access tokens of this instance are accepted fast: verified ones cached, revocations mirrored. */
export interface AccessTokenAcceptance {
  /** Verified access tokens of this instance (stateless checks only: revocation is always consulted). */
  readonly verified: VerifiedTokenCache;
  /** The pushed-revocations mirror the bearer check consults first (`pushedRevocations`), if on. */
  readonly revocationMirror: RevocationMirror | undefined;
}

/**
 * Everything a handler needs, resolved and validated once by `createGatehouse`. Internal: handlers
 * receive it; hosts never build one. Lifetimes here are in seconds, like the options.
 */
export interface Context {
  /** `{base_url}` without a trailing slash; also the realm of `WWW-Authenticate` challenges. */
  readonly issuer: string;
  readonly site: IssuerSite;
  readonly clock: InstanceClock;
  readonly randomBytes: RandomBytes;
  /** Emits an event (to `onEvent` and the audit sinks) with the time and instance added. */
  readonly emit: (event: GatehouseEvent) => void;
  readonly logger: Logger;
  /** Guarded stores: any failure or timeout surfaces as `StorageUnavailableError`. */
  readonly storage: InstanceStores;
  /** The host's clients, then the instance's registered ones, then metadata documents. */
  readonly clients: ClientDirectory;
  /**
   * The host's users, each record checked as it enters (`records/checked-user-store.ts`).
   * `verifyPassword` is there whenever a password route is served (checked at creation).
   */
  readonly users: UserLookup & Partial<Pick<UserStore, 'verifyPassword'>>;
  readonly keys: KeySet;
  readonly tokens: TokenPolicy;
  readonly limits: RequestLimits;
  readonly profile: SecurityProfile;
  /** The pages: renderers, wording and scope descriptions (`ui` options, resolved). */
  readonly ui: ResolvedUi;
  readonly session: {
    readonly cookieName: string;
    /** `Path` of the session cookie: the instance path, or the `session.cookiePath` prefix of it. */
    readonly cookiePath: string;
    readonly idleTimeout: number;
    readonly absoluteTimeout: number;
  };
}

/*
 * Capabilities: the parts of the context one concern reads. A function takes the narrowest one that
 * covers what it and its callees use, so that its signature says what it depends on (and a test can
 * hand it just that). Any `Context` is each of them.
 */

/** The instance clock (a capability: what takes the clock and nothing else of the context). */
export type Clock = Pick<Context, 'clock'>;

/** The host's claims hook, and the logger its failures go to (`tokens/host-claims.ts`). */
export type ClaimsSource = Pick<Context, 'tokens' | 'logger'>;

/** Signs the instance's tokens: keys, issuer, clock, randomness, and the host's claims. */
export type TokenSigning = ClaimsSource &
  Pick<Context, 'issuer' | 'keys' | 'clock' | 'randomBytes' | 'tokens'>;

/** Verifies the signature, issuer and times of the instance's own access tokens (with their cache). */
export type TokenVerifying = Clock & Pick<Context, 'issuer' | 'keys' | 'tokens'>;

/** Whether a token, its grant or its user was revoked: the mirror, else the grants store. */
export type RevocationCheck = Pick<Context, 'clock' | 'tokens' | 'storage'>;

/** Accepts an access token on an API: verification, audience (default: the instance's own), revocation. */
export type AccessTokenCheck = TokenVerifying & RevocationCheck & Pick<Context, 'tokens'>;

/** Authenticates the client of a back-channel request (`oauth2/client-auth/`). */
export type ClientAuthentication = Clock &
  Pick<Context, 'clients' | 'emit' | 'issuer' | 'site' | 'profile' | 'storage' | 'limits'>;

/** A back-channel request (RFC 6749 §3.2 style): a bounded form body, from a client authenticating. */
export type ClientRequest = ClientAuthentication & Pick<Context, 'limits'>;

/** Checks a user's password under the brute-force limits and the bound on checks in flight (`passwords/`). */
export type PasswordChecking = Pick<Context, 'users' | 'limits' | 'storage' | 'clock'>;

/** Verifies a JWT of another issuer the instance trusts (`trustedIssuers`): its keys, fetched or inline. */
export type TrustedJwtVerifying = Clock & Pick<Context, 'tokens' | 'clients'>;

/**
 * Issues a grant's tokens: what may be granted (scopes, resources), signing, lifetimes, the grants
 * store, users (for ID tokens), events.
 */
export type TokenIssuing = TokenSigning & Pick<Context, 'tokens' | 'storage' | 'emit' | 'users'>;

/**
 * Joins an instance's core (resolved from its options) and its imported keys into the handlers'
 * context. With stored keys (`keyRotation`), `keys` is the keyring's current set, read anew at each
 * access: code that needs two things of one key (a header's `kid` and the signature) reads
 * `ctx.keys` once.
 */
export function toContext(core: Omit<Context, 'keys'>, keys: KeySet | (() => KeySet)): Context {
  if (typeof keys !== 'function') return { ...core, keys };
  const context = { ...core } as Context;
  Object.defineProperty(context, 'keys', { get: keys, enumerable: true });
  return context;
}
