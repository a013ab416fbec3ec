import type { ClientConfig } from './config.js';
import { PATHS } from './config.js';
import { GatehouseClientError } from './errors.js';
import { errorFromResponse } from './server-errors.js';

/** The signed-in user of a session, as userinfo reports it. */
export interface SessionUser {
  /** The user's identifier. */
  readonly sub: string;
  /** Any further claims userinfo returned. */
  readonly [claim: string]: unknown;
}

/**
 * Whether the browser has an active session at the instance: `GET {base}/oauth2/v1/userinfo` with
 * the session cookie (`credentials: 'include'`) and `Accept: application/json`.
 * Resolves `null` for 401/403 (no or dead session); other failures reject.
 */
export async function checkSession(config: ClientConfig): Promise<SessionUser | null> {
  let response: Response;
  try {
    response = await config.fetch(config.baseUrl + PATHS.userinfo, {
      method: 'GET',
      headers: { Accept: 'application/json' },
      credentials: 'include',
    });
  } catch (caught) {
    throw new GatehouseClientError('network_error', 'checkSession: the request failed.', { cause: caught });
  }
  if (response.status === 401 || response.status === 403) {
    await response.body?.cancel();
    return null;
  }
  if (!response.ok) throw await errorFromResponse(response, 'session_check_failed', 'Session check');
  const body = (await response.json().catch(() => null)) as Record<string, unknown> | null;
  if (!body || typeof body.sub !== 'string') {
    throw new GatehouseClientError('invalid_response', 'Session check: the userinfo response has no "sub".');
  }
  return body as SessionUser;
}

/**
 * Ends the browser's session at the instance: a same-origin `POST {base}/logout` with the cookie.
 * A redirect or success ends it; 401 means there was none. Other answers reject.
 */
export async function endSession(config: ClientConfig): Promise<void> {
  let response: Response;
  try {
    response = await config.fetch(config.baseUrl + PATHS.logout, {
      method: 'POST',
      headers: { Accept: 'application/json' },
      credentials: 'include',
      redirect: 'manual',
    });
  } catch (caught) {
    throw new GatehouseClientError('network_error', 'logout: the request failed.', { cause: caught });
  }
  // A browser reports a manual redirect as an opaque response with status 0.
  const ended =
    response.type === 'opaqueredirect' ||
    (response.status >= 200 && response.status < 400) ||
    response.status === 401;
  if (!ended) throw await errorFromResponse(response, 'logout_failed', 'Logout');
  await response.body?.cancel();
}
