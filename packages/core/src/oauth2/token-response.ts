import type { Answer } from '../http/reply.js';
import { noStoreJson } from '../http/responses.js';

/** The successful token response of RFC 6749 §5.1 (and its `id_token`, OpenID Connect Core §3.1.3.3), never cached. */
export function tokenResponse(set: {
  accessToken: string;
  /** `DPoP` for a DPoP-bound access token (RFC 9449 §5). Default `Bearer`. */
  tokenType?: 'Bearer' | 'DPoP';
  expiresIn: number;
  refreshToken?: string;
  scope: string;
  idToken?: string | undefined;
}): Answer {
  // Members in this order, the optional ones only when issued (no object spread per response).
  const body: Record<string, string | number> = {
    access_token: set.accessToken,
    token_type: set.tokenType ?? 'Bearer',
    expires_in: set.expiresIn,
  };
  if (set.refreshToken) body.refresh_token = set.refreshToken;
  body.scope = set.scope;
  if (set.idToken) body.id_token = set.idToken;
  return noStoreJson(body);
}
