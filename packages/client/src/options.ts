import type { LockManagerLike } from './environment.js';
import type { TokenStore } from './token-store.js';
import type { TransactionStore } from './transaction-store.js';

/**
 * How `client.fetch` authenticates a request:
 * - `auto`: the bearer token when a token set is available, else the session cookie;
 * - `oauth`: the bearer token only; without one, a `no_token` error and no request;
 * - `session`: the session cookie only (`credentials: 'include'`, no `Authorization` header);
 * - `none`: no credentials at all (public endpoints).
 */
export type AuthMode = 'auto' | 'oauth' | 'session' | 'none';

/** The fetch function a client sends every request through. */
export type FetchFunction = (input: Request | URL | string, init?: RequestInit) => Promise<Response>;

/** Options of automatic refresh. */
export interface AutoRefreshOptions {
  /** Refresh this many seconds before the access token expires. Default 30. */
  readonly skewSeconds?: number;
}

/** Options of {@link createClient}. */
export interface ClientOptions {
  /** The instance's `{base_url}` (its issuer), e.g. `https://auth.example.com/acme`. */
  readonly baseUrl: string;
  /**
   * The registered client id. Required for the OAuth 2.0 flows (code flow, refresh, introspection,
   * OAuth revocation); optional when the client only uses the Auth API ({@link
   * GatehouseClient.loginWithPassword}), whose tokens belong to no client.
   */
  readonly clientId?: string;
  /**
   * The client secret of a confidential client. Refused in browsers: browser apps
   * use a public client with PKCE, session mode, or a backend that holds the secret.
   */
  readonly clientSecret?: string;
  /**
   * How the client authenticates at the token, revocation and introspection endpoints: the method
   * it is registered for (`tokenEndpointAuthMethod` on the server). Default `client_secret_basic`
   * with a {@link clientSecret}, `private_key_jwt` with a {@link clientPrivateKey}.
   * `client_secret_post` sends the secret in the body, for clients registered for it.
   */
  readonly tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt';
  /**
   * The private key of a `private_key_jwt` client (RFC 7523, server-side only): every request to
   * the token, revocation and introspection endpoints carries a fresh assertion signed with it
   * (`iss` = `sub` = the client id, `aud` = the issuer, a 60-second life, a random `jti`). Give a
   * non-extractable `CryptoKey` (e.g. `crypto.subtle.importKey('jwk', privateJwk, …, false,
   * ['sign'])`) and the `kid` of the public key registered for the client. Refused in browsers.
   */
  readonly clientPrivateKey?: CryptoKey | { readonly key: CryptoKey; readonly kid?: string };
  /** The redirect URI registered for the client, where `handleCallback` runs. */
  readonly redirectUri?: string;
  /** Default authentication mode of `client.fetch`. Default `auto`. */
  readonly mode?: AuthMode;
  /** Where tokens live. Default {@link memoryTokenStore}. */
  readonly tokenStore?: TokenStore;
  /** Refresh expired or expiring access tokens before requests and after a 401. Default `true`. */
  readonly autoRefresh?: boolean | AutoRefreshOptions;
  /** The fetch function for every request (tests, instrumentation, proxies). Default `globalThis.fetch`. */
  readonly fetch?: FetchFunction;
  /** Where pending sign-ins live. Default sessionStorage in browsers, memory elsewhere. */
  readonly transactionStore?: TransactionStore;
  /** Other origins (`https://api.example.com`) that may receive the credentials. Default none. */
  readonly resourceOrigins?: readonly string[];
  /** Cross-tab lock for refreshes. Default `navigator.locks` where available; `null` disables. */
  readonly locks?: LockManagerLike | null;
  /** The clock, in Unix milliseconds. Default `Date.now`. */
  readonly now?: () => number;
  /**
   * Sender-constrained tokens (DPoP, RFC 9449): `true` creates the client's key (in a browser a
   * non-extractable key kept in IndexedDB across reloads; elsewhere one for the life of the
   * client); a `CryptoKeyPair` is a key the app provides (server side). Token, refresh and client
   * credentials requests then send proofs and get DPoP-bound tokens, `client.fetch` sends them with
   * `Authorization: DPoP` and a proof, the code is bound with `dpop_jkt`, and server nonces are
   * handled. Default `false`.
   */
  readonly dpop?: boolean | CryptoKeyPair;
  /**
   * Push authorization requests (RFC 9126): `authorizationUrl()` sends the request to the pushed
   * authorization request endpoint first and returns a URL with only `client_id` and
   * `request_uri`. Required for clients registered with `require_pushed_authorization_requests`.
   * Default `false`.
   */
  readonly pushAuthorizationRequests?: boolean;
}
