import type { ClientConfig } from './config.js';
import { PATHS } from './config.js';
import { GatehouseClientError } from './errors.js';
import { errorFromResponse } from './server-errors.js';
import { toTokenSet } from './token-response.js';
import type { TokenSet } from './token-store.js';

/** Base64 of the UTF-8 bytes of `text` (RFC 7617 §2.1 with charset UTF-8), without Node's Buffer. */
function base64Utf8(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * Exchanges a username and password for an access token at the Auth API (`POST {base}/auth/v1/token`
 * with HTTP Basic user credentials, no body) and stores it. Such tokens have no refresh
 * token: when they expire, the user signs in again.
 */
export async function loginWithPassword(
  config: ClientConfig,
  username: string,
  password: string,
): Promise<TokenSet> {
  // RFC 7617 §2: the user-id cannot contain a colon, the first colon separates it from the password.
  if (username === '' || username.includes(':')) {
    throw new GatehouseClientError(
      'invalid_argument',
      'loginWithPassword: the username must be non-empty and contain no ":".',
    );
  }
  let response: Response;
  try {
    response = await config.fetch(config.baseUrl + PATHS.authApiToken, {
      method: 'POST',
      headers: {
        Authorization: `Basic ${base64Utf8(`${username}:${password}`)}`,
        Accept: 'application/json',
      },
      credentials: 'omit',
    });
  } catch (caught) {
    throw new GatehouseClientError('network_error', 'loginWithPassword: the request failed.', {
      cause: caught,
    });
  }
  if (!response.ok) throw await errorFromResponse(response, 'login_failed', 'Password login');
  let body: Record<string, unknown>;
  try {
    body = (await response.json()) as Record<string, unknown>;
  } catch (caught) {
    throw new GatehouseClientError('invalid_response', 'Password login: the response is not JSON.', {
      cause: caught,
    });
  }
  const tokens: TokenSet = { ...toTokenSet(body, config.now()), family: 'auth_api' };
  await config.store.set(tokens);
  return tokens;
}
