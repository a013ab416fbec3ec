import * as oauth from 'oauth4webapi';
import type { ClientConfig } from './config.js';
import { GatehouseClientError } from './errors.js';
import type { AuthMode } from './options.js';
import type { Refresher } from './refresher.js';
import type { TokenSet } from './token-store.js';

/** `RequestInit` plus the per-request authentication mode. */
export interface ClientRequestInit extends RequestInit {
  /** Overrides the client's default {@link AuthMode} for this request. */
  readonly auth?: AuthMode;
}

/**
 * The `client.fetch` of a client: resolves relative URLs against `{base_url}/`, applies the mode,
 * refreshes an expiring token first (autoRefresh), and retries once after a 401 `invalid_token`.
 */
export function createAuthorizedFetch(config: ClientConfig, refresher: Refresher) {
  const nowSeconds = () => Math.floor(config.now() / 1000);
  const isExpiring = (tokens: TokenSet) => tokens.expiresAt - effectiveSkew(config, tokens) <= nowSeconds();

  /** The usable token set, refreshed first when it expires soon; `null` when there is none. */
  const usableTokens = async (): Promise<TokenSet | null> => {
    const tokens = await config.store.get();
    if (!tokens || !isExpiring(tokens)) return tokens;
    if (tokens.refreshToken) return config.autoRefresh ? refresher.refresh(isExpiring) : tokens;
    if (tokens.expiresAt > nowSeconds()) return tokens; // expiring soon, not refreshable: use it while it lasts
    // Expired and not refreshable (e.g. an Auth API token): it is of no use to anyone any more.
    await config.store.set(null);
    return null;
  };

  const send = async (
    request: Request,
    mode: 'bearer' | 'session' | 'none',
    token?: string,
    tokenType?: 'DPoP',
  ): Promise<Response> => {
    if (mode === 'bearer' && tokenType === 'DPoP') return sendWithProof(request, token!);
    const headers = new Headers(request.headers);
    if (mode === 'bearer') headers.set('Authorization', `Bearer ${token}`);
    // Cookies go only where the mode asks for them; a bearer request carries no ambient credentials.
    return config.fetch(
      new Request(request, { headers, credentials: mode === 'session' ? 'include' : 'omit' }),
    );
  };

  /**
   * A DPoP-bound token (RFC 9449 §7): `Authorization: DPoP` and a proof of the request, through
   * oauth4webapi, once more when the resource server asks for a (new) nonce. A refusal comes back
   * as the response, as for bearer tokens.
   */
  const sendWithProof = async (request: Request, token: string): Promise<Response> => {
    const dpop = await config.dpop();
    if (!dpop)
      throw new GatehouseClientError(
        'no_token',
        'client.fetch: the stored token is DPoP-bound but the client has no DPoP key (dpop option).',
      );
    const body = request.body === null ? null : await request.arrayBuffer();
    const attempt = async (retry: boolean): Promise<Response> => {
      try {
        return await oauth.protectedResourceRequest(
          token,
          request.method,
          new URL(request.url),
          new Headers(request.headers),
          body,
          {
            ...config.http,
            // As for bearer tokens: the token is the credential, no cookies go along.
            [oauth.customFetch]: (url, init) =>
              config.fetch(url, { ...(init as RequestInit), credentials: 'omit' }),
            DPoP: dpop,
          },
        );
      } catch (error) {
        if (retry && oauth.isDPoPNonceError(error)) return attempt(false);
        if (error instanceof oauth.WWWAuthenticateChallengeError) return error.response;
        throw error;
      }
    };
    return attempt(true);
  };

  return async function authorizedFetch(
    input: Request | URL | string,
    init: ClientRequestInit = {},
  ): Promise<Response> {
    const { auth, ...requestInit } = init;
    const mode = auth ?? config.mode;
    const target =
      typeof input === 'string' || input instanceof URL
        ? new URL(input, `${config.baseUrl}/`)
        : new URL(input.url);
    const request =
      typeof input === 'string' || input instanceof URL
        ? new Request(target, requestInit)
        : new Request(input, requestInit);
    if (mode === 'none') return send(request, 'none');
    if (!config.trustedOrigins.has(target.origin)) {
      throw new GatehouseClientError(
        'untrusted_origin',
        `client.fetch: ${target.origin} is neither the instance's origin nor in resourceOrigins; credentials are not sent there.`,
      );
    }
    if (mode === 'session') return send(request, 'session');
    const tokens = await usableTokens();
    if (!tokens) {
      if (mode === 'auto') return send(request, 'session');
      throw new GatehouseClientError(
        'no_token',
        'client.fetch: oauth mode needs a token set; sign in first. No request was sent.',
      );
    }
    // Keep a copy of the body for the one retry.
    const retryCopy = request.clone();
    const response = await send(request, 'bearer', tokens.accessToken, tokens.tokenType);
    if (!config.autoRefresh || !tokens.refreshToken || !isInvalidTokenChallenge(response)) return response;
    // RFC 6750 §3.1: the token was refused (revoked, or the clocks disagree). Refresh unless another
    // caller already replaced it, then try once more.
    const fresh = await refresher.refresh((current) => current.accessToken === tokens.accessToken);
    await response.body?.cancel();
    return send(retryCopy, 'bearer', fresh.accessToken, fresh.tokenType);
  };
}

/**
 * The refresh skew for a token set: the configured one, capped at half the token's lifetime. With a
 * lifetime at or below the skew, a fresh token would otherwise count as expiring and every request
 * would refresh first.
 */
export function effectiveSkew(config: Pick<ClientConfig, 'skewSeconds'>, tokens: TokenSet): number {
  return tokens.lifetime === undefined
    ? config.skewSeconds
    : Math.min(config.skewSeconds, tokens.lifetime / 2);
}

/** Whether a response is 401 with a Bearer challenge carrying `error="invalid_token"` (RFC 6750 §3). */
export function isInvalidTokenChallenge(response: Response): boolean {
  if (response.status !== 401) return false;
  const challenge = response.headers.get('www-authenticate') ?? '';
  return /(^|,)\s*(Bearer|DPoP)\b/i.test(challenge) && /\berror\s*=\s*"?invalid_token"?/i.test(challenge);
}
