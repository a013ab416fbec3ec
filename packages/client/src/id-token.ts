import * as oauth from 'oauth4webapi';
import type { ClientConfig } from './config.js';
import { GatehouseClientError } from './errors.js';
import type { TokenSet } from './token-store.js';

/**
 * The oauth4webapi client of a config, on the client's clock (`options.now`): ID token times are
 * checked against it.
 */
export function clientOnConfigClock(config: ClientConfig): oauth.Client {
  const skew = Math.round((config.now() - Date.now()) / 1000);
  return skew === 0 ? config.client : { ...config.client, [oauth.clockSkew]: skew };
}

/**
 * Checks the signature of the ID token of a token response (`response`, already processed into
 * `result`) against the instance's JWKS (oauth4webapi
 * has already checked its claims: `iss`, `aud`, `exp`, `iat`, `nonce`, `auth_time`), and that a
 * refreshed one names the same user as before (OpenID Connect Core §12.2). No ID token: nothing to
 * check.
 */
export async function checkIdToken(
  config: ClientConfig,
  response: Response,
  result: oauth.TokenEndpointResponse,
  previous?: TokenSet | null,
): Promise<void> {
  if (result.id_token === undefined) return;
  try {
    await oauth.validateApplicationLevelSignature(config.as, response, config.http);
  } catch (caught) {
    throw new GatehouseClientError(
      'invalid_response',
      'The ID token signature does not verify with the instance keys.',
      {
        cause: caught,
      },
    );
  }
  const sub = oauth.getValidatedIdTokenClaims(result)?.sub;
  if (previous?.claims?.sub !== undefined && sub !== previous.claims.sub) {
    throw new GatehouseClientError(
      'invalid_response',
      'The refreshed ID token names another user than the sign-in.',
    );
  }
}
