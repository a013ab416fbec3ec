import * as oauth from 'oauth4webapi';
import { type ClientConfig, requireClientId } from './config.js';
import { withNonceRetry } from './dpop.js';
import { GatehouseClientError } from './errors.js';
import { toClientError } from './server-errors.js';
import { toTokenSet } from './token-response.js';
import type { TokenSet } from './token-store.js';

/** Options of {@link GatehouseClient.clientCredentials}. */
export interface ClientCredentialsOptions {
  /** The scope to ask for (space-separated), within the client's registered scopes. */
  readonly scope?: string;
}

/**
 * The client credentials grant (RFC 6749 §4.4): a confidential client (secret or private key)
 * obtains an access token for itself, stored like any other token set, so `client.fetch` in
 * `oauth` mode sends it. There is no refresh token: call it again when the token expires.
 */
export async function clientCredentials(
  config: ClientConfig,
  options: ClientCredentialsOptions = {},
): Promise<TokenSet> {
  requireClientId(config, 'clientCredentials');
  if (!config.confidential) {
    throw new GatehouseClientError(
      'confidential_client_required',
      'clientCredentials: only confidential clients (clientSecret or clientPrivateKey) may use the client credentials grant.',
    );
  }
  const parameters = new URLSearchParams();
  if (options.scope !== undefined) parameters.set('scope', options.scope);
  let tokens: TokenSet;
  try {
    const dpop = await config.dpop();
    const result = await withNonceRetry(async () => {
      const response = await oauth.clientCredentialsGrantRequest(
        config.as,
        config.client,
        config.clientAuth,
        parameters,
        { ...config.http, ...(dpop ? { DPoP: dpop } : {}) },
      );
      return oauth.processClientCredentialsResponse(config.as, config.client, response);
    });
    tokens = toTokenSet(result, config.now());
  } catch (caught) {
    throw toClientError(caught, 'token_request_failed', 'Client credentials grant');
  }
  await config.store.set(tokens);
  return tokens;
}
