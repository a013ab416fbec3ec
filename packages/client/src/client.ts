import * as oauth from 'oauth4webapi';
import { loginWithPassword } from './auth-api.js';
import { type ClientRequestInit, createAuthorizedFetch } from './authorized-fetch.js';
import { type ClientCredentialsOptions, clientCredentials } from './client-credentials.js';
import { type AuthorizationUrlOptions, authorizationUrl, handleCallback } from './code-flow.js';
import { type ClientConfig, PATHS, requireClientId, resolveConfig } from './config.js';
import {
  type DeviceAuthorization,
  type DeviceAuthorizationOptions,
  startDeviceAuthorization,
} from './device-flow.js';
import { isBrowser } from './environment.js';
import { GatehouseClientError } from './errors.js';
import type { AuthMode, ClientOptions } from './options.js';
import { createRefresher } from './refresher.js';
import { errorFromResponse, toClientError } from './server-errors.js';
import { checkSession, endSession, type SessionUser } from './session.js';
import type { TokenSet } from './token-store.js';

/** Options of {@link GatehouseClient.signOut}. */
export interface SignOutOptions {
  /** Where Gatehouse sends the browser afterwards: one of the client's registered post-logout URIs. */
  readonly postLogoutRedirectUri?: string;
  /** Returned unchanged on the post-logout redirect. */
  readonly state?: string;
}

/** A client of one Gatehouse instance. Create it with {@link createClient}. */
export interface GatehouseClient {
  /** The instance's `{base_url}`, without a trailing slash. */
  readonly baseUrl: string;
  /** The default mode of {@link fetch}. */
  readonly mode: AuthMode;
  /**
   * `fetch` with the client's credentials applied by mode (override per request with `auth`).
   * Relative URLs resolve against `{base_url}/` (`'api/v1/tickets'`). Credentials only go to the
   * instance's origin and `resourceOrigins`.
   */
  fetch(input: Request | URL | string, init?: ClientRequestInit): Promise<Response>;
  /** The authorization URL for the code flow with state and PKCE S256; redirect the user there. */
  authorizationUrl(options?: AuthorizationUrlOptions): Promise<URL>;
  /** Completes the code flow at the redirect URI and stores the token set. */
  handleCallback(url: URL | string): Promise<TokenSet>;
  /** Refreshes the token set now (single flight with other refreshes) and stores the new one. */
  refresh(): Promise<TokenSet>;
  /**
   * Revokes the stored tokens where they were issued, and clears the store: OAuth 2.0 tokens at the
   * RFC 7009 endpoint (refresh token first, which ends the grant), Auth API tokens
   * (`loginWithPassword`) at the Auth API's revocation endpoint. The store is cleared even when
   * the server cannot be reached; the failure is still reported.
   */
  revoke(): Promise<void>;
  /** Introspects a token (RFC 7662), by default the stored access token. Confidential clients only. */
  introspect(token?: string): Promise<oauth.IntrospectionResponse>;
  /**
   * Server-side: obtains and stores an access token for the client itself (client credentials,
   * RFC 6749 §4.4), authenticating with its secret or private key. No refresh token; call it again
   * once the token expires.
   */
  clientCredentials(options?: ClientCredentialsOptions): Promise<TokenSet>;
  /**
   * Starts the device authorization grant (RFC 8628), for a CLI or a device without a browser:
   * show the returned `userCode` and `verificationUri` to the person, then `wait()` (polls with the
   * server's interval and `slow_down`; `cancel()` stops it). The token set is stored like any other,
   * and refreshed the same way. Works wherever `fetch` does (Node.js, Bun, Deno, browsers).
   */
  startDeviceAuthorization(options?: DeviceAuthorizationOptions): Promise<DeviceAuthorization>;
  /** Obtains and stores an access token from the Auth API with a username and password. */
  loginWithPassword(username: string, password: string): Promise<TokenSet>;
  /**
   * Signs out: revokes the stored tokens, clears the store and, in a browser, ends the session with
   * a same-origin `POST {base}/logout`.
   */
  logout(): Promise<void>;
  /**
   * Signs out at the OpenID Provider (RP-Initiated Logout 1.0): revokes the stored tokens, clears
   * the store, and returns the end-session URL to send the browser to, with the stored ID token as
   * `id_token_hint` (so Gatehouse ends the session without asking), `client_id`, and the
   * `postLogoutRedirectUri` (registered for the client) and `state` Gatehouse returns to. Without a
   * stored ID token Gatehouse asks the user to confirm.
   */
  signOut(options?: SignOutOptions): Promise<URL>;
  /**
   * The claims of the signed-in user from the stored ID token (`sub`, `auth_time`, and the profile
   * the granted scopes release: `name`, `email`, …), or `null` without an OpenID Connect sign-in.
   */
  getClaims(): Promise<Readonly<Record<string, unknown>> | null>;
  /** The signed-in user of the browser session (`{ sub, … }`), or `null` when there is none. */
  checkSession(): Promise<SessionUser | null>;
  /** The stored token set, or `null`. */
  getTokens(): Promise<TokenSet | null>;
}

/**
 * Creates a client for one Gatehouse instance. Throws a `GatehouseClientError` with code
 * `secret_in_browser` for a `clientSecret` in browser code, `invalid_options` for unusable options.
 */
export function createClient(options: ClientOptions): GatehouseClient {
  const config = resolveConfig(options);
  const refresher = createRefresher(config);
  const authorizedFetch = createAuthorizedFetch(config, refresher);

  const revoke = async (): Promise<void> => {
    // A refresh in flight must not store its tokens after this sign-out (it throws `no_token`).
    refresher.invalidate();
    const tokens = await config.store.get();
    // Local sign-out happens whatever the server says; a failed revocation is still reported.
    await config.store.set(null);
    if (!tokens) return;
    if (tokens.family === 'auth_api') return revokeAuthApiToken(config, tokens.accessToken);
    requireClientId(config, 'revoke');
    // The refresh token first: revoking it ends the whole grant on Gatehouse (RFC 7009 §2.1).
    const revocations = [
      ...(tokens.refreshToken ? [{ token: tokens.refreshToken, hint: 'refresh_token' }] : []),
      { token: tokens.accessToken, hint: 'access_token' },
    ];
    for (const { token, hint } of revocations) {
      try {
        const response = await oauth.revocationRequest(config.as, config.client, config.clientAuth, token, {
          ...config.http,
          additionalParameters: { token_type_hint: hint },
        });
        await oauth.processRevocationResponse(response);
      } catch (caught) {
        throw toClientError(caught, 'revocation_failed', 'Revocation');
      }
    }
  };

  return {
    baseUrl: config.baseUrl,
    mode: config.mode,
    fetch: authorizedFetch,
    authorizationUrl: (urlOptions) => authorizationUrl(config, urlOptions),
    handleCallback: (url) => handleCallback(config, url),
    refresh: () => refresher.refresh(() => true),
    revoke,
    introspect: (token) => introspect(config, token),
    clientCredentials: (grantOptions) => clientCredentials(config, grantOptions),
    startDeviceAuthorization: (deviceOptions) => startDeviceAuthorization(config, deviceOptions),
    loginWithPassword: (username, password) => loginWithPassword(config, username, password),
    async logout() {
      let revocationError: unknown;
      await revoke().catch((error) => {
        revocationError = error;
      });
      // Sessions exist in browsers only; elsewhere there is no cookie to end.
      if (isBrowser()) await endSession(config);
      if (revocationError) throw revocationError;
    },
    async signOut(signOutOptions = {}) {
      const clientId = requireClientId(config, 'signOut');
      const idToken = (await config.store.get())?.idToken;
      const url = new URL(config.as.end_session_endpoint as string);
      if (idToken) url.searchParams.set('id_token_hint', idToken);
      url.searchParams.set('client_id', clientId);
      if (signOutOptions.postLogoutRedirectUri)
        url.searchParams.set('post_logout_redirect_uri', signOutOptions.postLogoutRedirectUri);
      if (signOutOptions.state !== undefined) url.searchParams.set('state', signOutOptions.state);
      await revoke();
      return url;
    },
    getClaims: async () => (await config.store.get())?.claims ?? null,
    checkSession: () => checkSession(config),
    getTokens: async () => (await config.store.get()) ?? null,
  };
}

/**
 * Revokes an Auth API token with itself (`POST {base}/auth/v1/token/revoke`, `Authorization: Bearer`):
 * the OAuth revocation endpoint leaves Auth API tokens alone (RFC 7009 §2.1 binds it to client
 * tokens), so sending one there would report success and revoke nothing.
 */
async function revokeAuthApiToken(config: ClientConfig, accessToken: string): Promise<void> {
  let response: Response;
  try {
    response = await config.fetch(`${config.baseUrl}${PATHS.authApiRevoke}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${accessToken}`, Accept: 'application/json' },
      credentials: 'omit',
    });
  } catch (caught) {
    throw new GatehouseClientError('network_error', 'Revocation: the request failed.', { cause: caught });
  }
  if (!response.ok) throw await errorFromResponse(response, 'revocation_failed', 'Revocation');
}

async function introspect(config: ClientConfig, token?: string): Promise<oauth.IntrospectionResponse> {
  requireClientId(config, 'introspect');
  if (!config.confidential) {
    throw new GatehouseClientError(
      'confidential_client_required',
      'introspect: only confidential clients may introspect tokens.',
    );
  }
  const subject = token ?? (await config.store.get())?.accessToken;
  if (!subject) throw new GatehouseClientError('no_token', 'introspect: no token given and none stored.');
  try {
    const response = await oauth.introspectionRequest(
      config.as,
      config.client,
      config.clientAuth,
      subject,
      config.http,
    );
    return await oauth.processIntrospectionResponse(config.as, config.client, response);
  } catch (caught) {
    throw toClientError(caught, 'introspection_failed', 'Introspection');
  }
}
