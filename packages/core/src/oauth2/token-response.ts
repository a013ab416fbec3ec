import type { Answer } from '../http/reply.js';
import { noStoreJson } from '../http/responses.js';

/** The successful token response of RFC 6749 §5.1, never cached. */
export function tokenResponse(set: {
  accessToken: string;
  expiresIn: number;
  refreshToken?: string;
  scope: string;
}): Answer {
  return noStoreJson({
    access_token: set.accessToken,
    token_type: 'Bearer',
    expires_in: set.expiresIn,
    ...(set.refreshToken ? { refresh_token: set.refreshToken } : {}),
    scope: set.scope,
  });
}
