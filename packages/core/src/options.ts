import type { GatehouseEvent, Logger } from './events.js';
import type { ClientStore, GatehouseStorage, UserStore } from './storage/types.js';
import type { PrivateJwk, SigningAlgorithm } from './tokens/keys.js';
import type { RandomBytes } from './tokens/secrets.js';
import type {
  ConsentPageRenderer,
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
   */
  readonly issuer: string;
  /** Allows an `http:` issuer on a non-loopback host (never in production). Default `false`. */
  readonly allowInsecureIssuer?: boolean;

  /**
   * Private JWKs (each with a `kid`): the first signs, all verify. Create one with `generateKeys()`.
   * Rotate by prepending a new key and dropping the old one once its tokens have expired.
   */
  readonly keys: readonly PrivateJwk[];
  /** Signing algorithm of access tokens. Default `'ES256'`. */
  readonly algorithm?: SigningAlgorithm;

  /** The host's clients. */
  readonly clients: ClientStore;
  /** The host's users (and their password verification). */
  readonly users: UserStore;
  /** Where Gatehouse keeps codes, tokens, sessions, consents and counters. Default: in memory. */
  readonly storage?: Partial<GatehouseStorage>;
  /** Upper bound, in milliseconds, on any single storage call before it counts as failed (503). Default 5000. */
  readonly storageTimeoutMs?: number;

  /** Scopes the instance knows. Requests for others fail with `invalid_scope`. Default: any. */
  readonly scopes?: readonly string[];
  /** Scope granted when an authorization request names none. Default: empty. */
  readonly defaultScope?: string;
  /**
   * The `aud` of access tokens: the identifier of the protected REST API. Default `{issuer}/api/v1`.
   */
  readonly audience?: string;

  /** OAuth 2.0 access token lifetime (`expires_in`). Default 3600 (1 hour). */
  readonly accessTokenTtl?: number;
  /** Refresh token lifetime. Default 2,592,000 (30 days). Rotation issues each new token with a fresh lifetime. */
  readonly refreshTokenTtl?: number;
  /** Authorization code lifetime (RFC 6749 §4.1.2 recommends at most 10 minutes). Default 60. */
  readonly authorizationCodeTtl?: number;
  /**
   * Issue a new refresh token on every refresh and treat reuse of a rotated one as theft, revoking
   * the grant (RFC 9700 §4.14.2). Default `true`. Rotation is strict, with no grace period: clients
   * that refresh from several tabs must serialise refreshes (`@gatehouse/client` does, with a
   * single flight per page and the Web Locks API across tabs).
   */
  readonly rotateRefreshTokens?: boolean;
  /**
   * Which clients must use PKCE S256 (RFC 7636). `'public'` (default): public clients must,
   * confidential ones may (and are held to it when they send a challenge). `'all'`: everyone must.
   */
  readonly requirePkce?: 'public' | 'all';

  /** The credential-exchange Auth API under `{base}/auth/v1/`. */
  readonly authApi?: AuthApiOptions;
  /** Browser sessions and the login page. */
  readonly session?: SessionOptions;
  /** Brute-force protection of password checks (login page and Auth API). */
  readonly rateLimit?: RateLimitOptions;
  /** CORS for the REST API and the OAuth endpoints browsers call. */
  readonly cors?: CorsOptions;
  /** Replace the built-in HTML pages. */
  readonly ui?: UiOptions;

  /** Largest accepted request body, in bytes; larger bodies get 413. Default 65,536. */
  readonly maxBodyBytes?: number;
  /** Clock tolerance, in seconds, when verifying access token `exp`/`iat`. Default 5. */
  readonly clockToleranceSeconds?: number;

  /** Milliseconds since the epoch. Default `Date.now`. Injected so tests can move time. */
  readonly now?: () => number;
  /** Random bytes. Default Web Crypto. */
  readonly randomBytes?: RandomBytes;
  /** Receives security events; never receives secrets. */
  readonly onEvent?: (event: GatehouseEvent) => void;
  /** Receives diagnostics (store failures, configuration warnings). Default: `console`. */
  readonly logger?: Logger;
}

/** Options of the Auth API (seed §4.2). */
export interface AuthApiOptions {
  /**
   * Serve `{base}/auth/v1/…`. Default `true`. It exchanges a username and password for a token,
   * i.e. the resource owner password grant in another shape (RFC 9700 §2.4): keep it for
   * first-party tools and scripts, and prefer the authorization code flow for anything else.
   */
  readonly enabled?: boolean;
  /** Lifetime of Auth API access tokens. Default 86,400 (24 hours). */
  readonly tokenTtl?: number;
}

/** Options of browser sessions. */
export interface SessionOptions {
  /** Session cookie name. Default `gatehouse_session`. */
  readonly cookieName?: string;
  /** Idle timeout: a session unused this long ends. Default 1800 (30 minutes). */
  readonly idleTimeout?: number;
  /** Absolute timeout: a session ends this long after login, whatever the activity. Default 43,200 (12 hours). */
  readonly absoluteTimeout?: number;
}

/** Options of the password rate limiter. */
export interface RateLimitOptions {
  /** Failures allowed per username and client address within the window. Default 5. */
  readonly maxFailuresPerUsername?: number;
  /** Failures allowed per client address (all usernames) within the window. Default 50. */
  readonly maxFailuresPerAddress?: number;
  /** Window length. Default 900 (15 minutes). */
  readonly windowSeconds?: number;
  /**
   * How to find the client address of a request. Default: the address the adapter recorded with
   * `setClientAddress` (the socket address, honouring the framework's proxy settings); when none was
   * recorded, only the per-username limit applies.
   */
  readonly clientAddress?: (request: Request) => string | undefined;
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

/** Replacements for the built-in pages. Each returns a complete HTML document. */
export interface UiOptions {
  readonly renderLogin?: LoginPageRenderer;
  readonly renderConsent?: ConsentPageRenderer;
  readonly renderLogout?: LogoutPageRenderer;
  readonly renderError?: ErrorPageRenderer;
}
