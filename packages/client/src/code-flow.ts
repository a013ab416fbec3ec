import * as oauth from 'oauth4webapi';
import { type ClientConfig, requireClientId } from './config.js';
import { withNonceRetry } from './dpop.js';
import { GatehouseClientError } from './errors.js';
import { checkIdToken, clientOnConfigClock } from './id-token.js';
import { toClientError } from './server-errors.js';
import { toTokenSet } from './token-response.js';
import type { TokenSet } from './token-store.js';

/** Options of `client.authorizationUrl()`. */
export interface AuthorizationUrlOptions {
  /** Space-separated scopes to request. Default: the client's registered default. */
  readonly scope?: string;
  /** Redirect URI for this request. Default: the client's `redirectUri`. */
  readonly redirectUri?: string;
  /**
   * Extra authorization request parameters (e.g. `prompt`, `max_age`, `login_hint`). Cannot override
   * the protocol ones. A `max_age` is remembered: the ID token's `auth_time` must satisfy it.
   */
  readonly extraParams?: Readonly<Record<string, string>>;
}

/** How long a pending sign-in may wait for its callback. */
const TRANSACTION_TTL_MS = 15 * 60 * 1000;

/**
 * Builds the authorization request URL (RFC 6749 §4.1.1) with a fresh `state` (CSRF, §10.12) and
 * PKCE S256 (RFC 7636), plus a `nonce` when the scope has `openid` (OpenID Connect Core
 * §3.1.2.1), and remembers them for {@link handleCallback}.
 */
export async function authorizationUrl(
  config: ClientConfig,
  options: AuthorizationUrlOptions = {},
): Promise<URL> {
  const redirectUri = options.redirectUri ?? config.redirectUri;
  if (!redirectUri)
    throw new GatehouseClientError('invalid_options', 'authorizationUrl: no redirectUri configured.');
  const state = oauth.generateRandomState();
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const url = new URL(config.as.authorization_endpoint as string);
  for (const [name, value] of Object.entries(options.extraParams ?? {})) url.searchParams.set(name, value);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', requireClientId(config, 'authorizationUrl'));
  url.searchParams.set('redirect_uri', redirectUri);
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(codeVerifier));
  url.searchParams.set('code_challenge_method', 'S256');
  if (options.scope !== undefined) url.searchParams.set('scope', options.scope);
  else url.searchParams.delete('scope');
  const openid = options.scope?.split(' ').includes('openid') ?? false;
  const nonce = openid ? oauth.generateRandomNonce() : undefined;
  if (nonce === undefined) url.searchParams.delete('nonce');
  else url.searchParams.set('nonce', nonce);
  const maxAge = url.searchParams.get('max_age');
  // RFC 9449 §10: the code is bound to the client's DPoP key.
  const dpop = await config.dpop();
  if (dpop) url.searchParams.set('dpop_jkt', await dpop.calculateThumbprint());
  await config.transactions.put(state, {
    codeVerifier,
    redirectUri,
    createdAt: config.now(),
    ...(nonce === undefined ? {} : { nonce }),
    ...(maxAge !== null && /^\d+$/.test(maxAge) ? { maxAge: Number(maxAge) } : {}),
  });
  return config.pushAuthorizationRequests ? pushed(config, url, dpop) : url;
}

/**
 * RFC 9126: pushes the parameters of `url` (authenticated as at the token endpoint, with a DPoP
 * proof when the client uses DPoP) and returns the authorization URL with only `client_id` and
 * the `request_uri`.
 */
async function pushed(config: ClientConfig, url: URL, dpop: oauth.DPoPHandle | undefined): Promise<URL> {
  const parameters = new URLSearchParams(url.searchParams);
  parameters.delete('client_id');
  let requestUri: string;
  try {
    requestUri = await withNonceRetry(async () => {
      const response = await oauth.pushedAuthorizationRequest(
        config.as,
        config.client,
        config.clientAuth,
        parameters,
        { ...config.http, ...(dpop ? { DPoP: dpop } : {}) },
      );
      return (await oauth.processPushedAuthorizationResponse(config.as, config.client, response)).request_uri;
    });
  } catch (caught) {
    throw toClientError(caught, 'token_request_failed', 'Pushed authorization request');
  }
  const target = new URL(config.as.authorization_endpoint as string);
  target.searchParams.set('client_id', config.client.client_id);
  target.searchParams.set('request_uri', requestUri);
  return target;
}

/**
 * Completes the code flow at the redirect URI: checks `state` against a pending sign-in (single
 * use), requires `iss` to be the configured issuer (RFC 9207 §2.4: Gatehouse always sends it, so a
 * callback without it is refused too), turns an error callback into an `authorization_error`,
 * exchanges the code with the same `redirect_uri` and the PKCE verifier, validates the ID token of
 * an OpenID Connect sign-in (claims, `nonce`, `auth_time` against `max_age`, signature against the
 * JWKS), and stores the token set.
 */
export async function handleCallback(config: ClientConfig, input: URL | string): Promise<TokenSet> {
  requireClientId(config, 'handleCallback');
  const url = new URL(input);
  const params = url.searchParams;
  const state = params.get('state');
  const transaction = state === null ? null : await config.transactions.take(state);
  if (state === null || !transaction || config.now() - transaction.createdAt > TRANSACTION_TTL_MS) {
    throw new GatehouseClientError(
      'state_mismatch',
      'handleCallback: the state does not belong to a pending sign-in of this client (unknown, used or expired).',
    );
  }
  const iss = params.get('iss');
  if (iss !== config.as.issuer) {
    throw new GatehouseClientError(
      'issuer_mismatch',
      iss === null
        ? 'handleCallback: the callback has no iss parameter (RFC 9207); it cannot be from this issuer.'
        : `handleCallback: the callback comes from issuer "${iss}", not "${config.as.issuer}".`,
    );
  }
  const error = params.get('error');
  if (error !== null) {
    const description = params.get('error_description') ?? undefined;
    throw new GatehouseClientError(
      'authorization_error',
      `Authorization failed: ${error}${description ? ` (${description})` : ''}.`,
      {
        error,
        ...(description ? { errorDescription: description } : {}),
      },
    );
  }
  try {
    const validated = oauth.validateAuthResponse(config.as, config.client, params, state);
    const dpop = await config.dpop();
    const { response, result } = await withNonceRetry(async () => {
      const response = await oauth.authorizationCodeGrantRequest(
        config.as,
        config.client,
        config.clientAuth,
        validated,
        transaction.redirectUri,
        transaction.codeVerifier,
        { ...config.http, ...(dpop ? { DPoP: dpop } : {}) },
      );
      // With a nonce (scope openid) the ID token is required, and oauth4webapi validates its claims.
      const result = await oauth.processAuthorizationCodeResponse(
        config.as,
        clientOnConfigClock(config),
        response,
        {
          expectedNonce: transaction.nonce ?? oauth.expectNoNonce,
          requireIdToken: transaction.nonce !== undefined,
          ...(transaction.maxAge === undefined ? {} : { maxAge: transaction.maxAge }),
        },
      );
      return { response, result };
    });
    await checkIdToken(config, response, result);
    const tokens = toTokenSet(result, config.now());
    await config.store.set(tokens);
    return tokens;
  } catch (caught) {
    throw toClientError(caught, 'token_request_failed', 'Code exchange');
  }
}
