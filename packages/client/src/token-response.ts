import * as oauth from 'oauth4webapi';
import { GatehouseClientError } from './errors.js';
import type { TokenSet } from './token-store.js';

/**
 * The {@link TokenSet} of a token response. `expiresAt` = now + `expires_in` (Unix seconds), and
 * `lifetime` = `expires_in` (caps the refresh skew). A response without a refresh token keeps the
 * previous one (servers that do not rotate), and one without an ID token the previous ID token and
 * claims. The ID token of a response processed by oauth4webapi has been validated by it.
 */
export function toTokenSet(
  response: oauth.TokenEndpointResponse | Record<string, unknown>,
  nowMs: number,
  previous?: TokenSet | null,
): TokenSet {
  const { access_token: accessToken, expires_in: expiresIn, refresh_token: refreshToken, scope } = response;
  if (typeof accessToken !== 'string' || accessToken === '') {
    throw new GatehouseClientError('invalid_response', 'The token response has no access_token.');
  }
  if (typeof expiresIn !== 'number' || !Number.isFinite(expiresIn) || expiresIn < 0) {
    throw new GatehouseClientError('invalid_response', 'The token response has no usable expires_in.');
  }
  const refresh = typeof refreshToken === 'string' ? refreshToken : previous?.refreshToken;
  const idToken = typeof response.id_token === 'string' ? response.id_token : undefined;
  const identity =
    idToken === undefined
      ? previous?.idToken && previous.claims
        ? { idToken: previous.idToken, claims: previous.claims }
        : {}
      : { idToken, claims: { ...oauth.getValidatedIdTokenClaims(response as oauth.TokenEndpointResponse) } };
  // RFC 9449 §5: a DPoP-bound token is sent with the DPoP scheme and a proof (oauth4webapi lower-cases).
  const dpop = typeof response.token_type === 'string' && response.token_type.toLowerCase() === 'dpop';
  return {
    accessToken,
    ...(dpop ? { tokenType: 'DPoP' as const } : {}),
    expiresAt: Math.floor(nowMs / 1000) + expiresIn,
    ...(refresh ? { refreshToken: refresh } : {}),
    ...(typeof scope === 'string' ? { scope } : {}),
    lifetime: expiresIn,
    ...identity,
  };
}
