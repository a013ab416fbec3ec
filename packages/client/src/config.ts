import * as oauth from 'oauth4webapi';
import { type DpopSource, dpopSource } from './dpop.js';
import { defaultLocks, defaultTransactionStore, isBrowser, type LockManagerLike } from './environment.js';
import { GatehouseClientError } from './errors.js';
import type { AuthMode, ClientOptions, FetchFunction } from './options.js';
import { memoryTokenStore, type TokenStore } from './token-store.js';
import type { TransactionStore } from './transaction-store.js';

/** Endpoint paths below `{base_url}`. */
export const PATHS = {
  authorize: '/oauth2/v1/authorize',
  token: '/oauth2/v1/token',
  par: '/oauth2/v1/par',
  deviceAuthorization: '/oauth2/v1/device_authorization',
  revoke: '/oauth2/v1/revoke',
  introspect: '/oauth2/v1/introspect',
  userinfo: '/oauth2/v1/userinfo',
  jwks: '/oauth2/v1/keys',
  endSession: '/oauth2/v1/end-session',
  authApiToken: '/auth/v1/token',
  authApiRevoke: '/auth/v1/token/revoke',
  logout: '/logout',
} as const;

/** Validated options plus the oauth4webapi objects built from them; shared by the client's parts. */
export interface ClientConfig {
  readonly baseUrl: string;
  readonly origin: string;
  /** `undefined` when the client only uses the Auth API (see {@link requireClientId}). */
  readonly clientId: string | undefined;
  readonly confidential: boolean;
  readonly redirectUri: string | undefined;
  readonly mode: AuthMode;
  readonly store: TokenStore;
  readonly transactions: TransactionStore;
  readonly autoRefresh: boolean;
  readonly skewSeconds: number;
  readonly fetch: FetchFunction;
  readonly trustedOrigins: ReadonlySet<string>;
  readonly locks: LockManagerLike | null;
  readonly now: () => number;
  readonly as: oauth.AuthorizationServer;
  readonly client: oauth.Client;
  readonly clientAuth: oauth.ClientAuth;
  /** The client's DPoP handle, when it uses DPoP (`dpop` option). */
  readonly dpop: DpopSource;
  /** The key id of a DPoP key the client created (IndexedDB), to forget it at sign-out. */
  readonly dpopKeyId: string | undefined;
  /** Whether `authorizationUrl()` pushes the request (RFC 9126). */
  readonly pushAuthorizationRequests: boolean;
  /** Options for every oauth4webapi request: our fetch, and http only for loopback issuers. */
  readonly http: { [oauth.customFetch]: FetchFunction; [oauth.allowInsecureRequests]: boolean };
}

/**
 * The client id, for an operation of the OAuth 2.0 family; throws `invalid_options` naming the
 * operation when the client was created without one (Auth API only).
 */
export function requireClientId(config: ClientConfig, operation: string): string {
  if (config.clientId === undefined) {
    throw invalid(
      `clientId is required for ${operation} (a client created without one can only use the Auth API).`,
    );
  }
  return config.clientId;
}

const MODES: readonly AuthMode[] = ['auto', 'oauth', 'session', 'none'];
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

function invalid(message: string): GatehouseClientError {
  return new GatehouseClientError('invalid_options', `createClient: ${message}`);
}

/**
 * The oauth4webapi client authentication of the options: the registered method with the secret or
 * the private key (RFC 6749 §2.3.1, RFC 7523 §2.2), or none for a public client.
 */
function clientAuthentication(options: ClientOptions): oauth.ClientAuth {
  const { clientSecret, clientPrivateKey } = options;
  if (clientSecret !== undefined && clientPrivateKey !== undefined) {
    throw invalid('give clientSecret or clientPrivateKey, not both: a client is registered for one method.');
  }
  const method =
    options.tokenEndpointAuthMethod ??
    (clientPrivateKey !== undefined
      ? 'private_key_jwt'
      : clientSecret !== undefined
        ? 'client_secret_basic'
        : undefined);
  switch (method) {
    case undefined:
      return oauth.None();
    case 'client_secret_basic':
    case 'client_secret_post':
      if (clientSecret === undefined) throw invalid(`tokenEndpointAuthMethod ${method} needs clientSecret.`);
      return method === 'client_secret_basic'
        ? oauth.ClientSecretBasic(clientSecret)
        : oauth.ClientSecretPost(clientSecret);
    case 'private_key_jwt': {
      if (clientPrivateKey === undefined)
        throw invalid('tokenEndpointAuthMethod private_key_jwt needs clientPrivateKey.');
      const key = 'key' in clientPrivateKey ? clientPrivateKey : { key: clientPrivateKey };
      if (key.key?.type !== 'private') throw invalid('clientPrivateKey must be a private CryptoKey.');
      return oauth.PrivateKeyJwt(key);
    }
    default:
      throw invalid(`tokenEndpointAuthMethod "${String(method)}" is not supported.`);
  }
}

/** Validates {@link ClientOptions} with precise messages, and fills in the defaults. */
export function resolveConfig(options: ClientOptions): ClientConfig {
  if ((options.clientSecret !== undefined || options.clientPrivateKey !== undefined) && isBrowser()) {
    throw new GatehouseClientError(
      'secret_in_browser',
      'createClient: a clientSecret must not be embedded in browser code (anyone can read it). Register a ' +
        'public client and use the code flow with PKCE, use session mode, or keep the secret on a backend.',
    );
  }
  let base: URL;
  try {
    base = new URL(options.baseUrl);
  } catch {
    throw invalid(`baseUrl "${options.baseUrl}" is not an absolute URL.`);
  }
  if (base.search || base.hash) throw invalid('baseUrl must not have a query or fragment.');
  const loopback = LOOPBACK.has(base.hostname);
  if (base.protocol !== 'https:' && !(base.protocol === 'http:' && loopback)) {
    throw invalid('baseUrl must use https (http is allowed for localhost only).');
  }
  if (options.clientId !== undefined && (typeof options.clientId !== 'string' || options.clientId === '')) {
    throw invalid('clientId must be a non-empty string (leave it out to use the Auth API only).');
  }
  if (options.clientId === undefined && options.clientSecret !== undefined) {
    throw invalid('clientSecret without clientId: a secret belongs to a registered client.');
  }
  if (options.clientId === undefined && options.clientPrivateKey !== undefined) {
    throw invalid('clientPrivateKey without clientId: a key belongs to a registered client.');
  }
  if (options.clientSecret === '') throw invalid('clientSecret must not be empty.');
  const clientAuth = clientAuthentication(options);
  if (options.redirectUri !== undefined) {
    try {
      new URL(options.redirectUri);
    } catch {
      throw invalid(`redirectUri "${options.redirectUri}" is not an absolute URL.`);
    }
  }
  const mode = options.mode ?? 'auto';
  if (!MODES.includes(mode)) throw invalid(`mode must be one of ${MODES.join(', ')}.`);
  const refresh = options.autoRefresh ?? true;
  const skewSeconds = typeof refresh === 'object' ? (refresh.skewSeconds ?? 30) : 30;
  if (!Number.isFinite(skewSeconds) || skewSeconds < 0) throw invalid('autoRefresh.skewSeconds must be ≥ 0.');
  const fetchFunction = options.fetch ?? (globalThis.fetch ? globalThis.fetch.bind(globalThis) : undefined);
  if (!fetchFunction) throw invalid('no fetch function: pass the `fetch` option.');
  const trustedOrigins = new Set([base.origin]);
  for (const origin of options.resourceOrigins ?? []) {
    try {
      trustedOrigins.add(new URL(origin).origin);
    } catch {
      throw invalid(`resourceOrigins entry "${origin}" is not an absolute URL.`);
    }
  }

  const baseUrl = base.href.replace(/\/$/, '');
  const at = (path: string) => baseUrl + path;
  const dpop = options.dpop ?? false;
  if (
    typeof dpop !== 'boolean' &&
    !(dpop?.privateKey?.type === 'private' && dpop.publicKey?.type === 'public')
  )
    throw invalid('dpop must be true, false or a CryptoKeyPair.');
  const oauthClient = { client_id: options.clientId ?? '' };
  const dpopKeyId = dpop === true ? `${baseUrl} ${options.clientId ?? ''}` : undefined;
  return {
    // Proofs are dated on the configured clock (the `now` option), as ID tokens are checked.
    dpop: dpopSource(
      dpop,
      () => {
        const skew = Math.round(((options.now ?? Date.now)() - Date.now()) / 1000);
        return skew === 0 ? oauthClient : { ...oauthClient, [oauth.clockSkew]: skew };
      },
      dpopKeyId ?? '',
    ),
    dpopKeyId,
    pushAuthorizationRequests: options.pushAuthorizationRequests ?? false,
    baseUrl,
    origin: base.origin,
    clientId: options.clientId,
    confidential: options.clientSecret !== undefined || options.clientPrivateKey !== undefined,
    redirectUri: options.redirectUri,
    mode,
    store: options.tokenStore ?? memoryTokenStore(),
    transactions: options.transactionStore ?? defaultTransactionStore(),
    autoRefresh: refresh !== false,
    skewSeconds,
    fetch: fetchFunction,
    trustedOrigins,
    locks: options.locks === undefined ? defaultLocks() : options.locks,
    now: options.now ?? Date.now,
    // Built from the fixed endpoint paths rather than discovered: one round trip less, and the
    // issuer is what the caller configured (RFC 8414 §3.3 would demand the same equality).
    as: {
      issuer: baseUrl,
      authorization_endpoint: at(PATHS.authorize),
      token_endpoint: at(PATHS.token),
      pushed_authorization_request_endpoint: at(PATHS.par),
      device_authorization_endpoint: at(PATHS.deviceAuthorization),
      revocation_endpoint: at(PATHS.revoke),
      introspection_endpoint: at(PATHS.introspect),
      userinfo_endpoint: at(PATHS.userinfo),
      jwks_uri: at(PATHS.jwks),
      end_session_endpoint: at(PATHS.endSession),
      // ID tokens are signed with RS256 unless the client registered another of Gatehouse's
      // algorithms; the signature is checked against the JWKS whatever it is.
      id_token_signing_alg_values_supported: ['RS256', 'ES256', 'EdDSA'],
      code_challenge_methods_supported: ['S256'],
      // Gatehouse always sends `iss` (RFC 9207), so a callback without it is refused (§2.4).
      authorization_response_iss_parameter_supported: true,
    },
    client: oauthClient,
    clientAuth,
    http: {
      [oauth.customFetch]: fetchFunction,
      [oauth.allowInsecureRequests]: loopback && base.protocol === 'http:',
    },
  };
}
