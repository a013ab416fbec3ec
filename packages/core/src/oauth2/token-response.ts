import type { Answer } from '../http/reply.js';
import { noStoreJsonText } from '../http/responses.js';
import type { AuthorizationDetail } from '../tokens/authorization-details.js';

/**
 * The successful token response of RFC 6749 §5.1 (and its `id_token`, OpenID Connect Core §3.1.3.3),
 * never cached.
 *
 * The tokens must be Gatehouse's own: a JWS compact serialisation (RFC 7515 §7.1, base64url
 * segments joined by `.`) or a base64url secret (`randomSecret`). Their characters are none that
 * JSON escapes, so they are written into the JSON text as they are: `JSON.stringify` scanned each
 * of their characters for escapes, ~20 instructions a character, and the access token alone has
 * about 600 (under callgrind, the largest single cost of a refresh on the event loop). The scope,
 * which comes from records, goes through `JSON.stringify`.
 */
export function tokenResponse(set: {
  accessToken: string;
  /** `DPoP` for a DPoP-bound access token (RFC 9449 §5). Default `Bearer`. */
  tokenType?: 'Bearer' | 'DPoP';
  expiresIn: number;
  refreshToken?: string | undefined;
  scope: string;
  idToken?: string | undefined;
  /** RFC 9396 §7: the authorization details the access token grants. */
  authorizationDetails?: readonly AuthorizationDetail[] | undefined;
}): Answer {
  // Members in this order, the optional ones only when issued.
  let text = `{"access_token":"${set.accessToken}","token_type":"${set.tokenType ?? 'Bearer'}","expires_in":${JSON.stringify(set.expiresIn)}`;
  if (set.refreshToken) text += `,"refresh_token":"${set.refreshToken}"`;
  text += `,"scope":${JSON.stringify(set.scope)}`;
  if (set.idToken) text += `,"id_token":"${set.idToken}"`;
  if (set.authorizationDetails !== undefined)
    text += `,"authorization_details":${JSON.stringify(set.authorizationDetails)}`;
  return noStoreJsonText(`${text}}`);
}
