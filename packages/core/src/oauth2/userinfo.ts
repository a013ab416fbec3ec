import { noStoreJson } from '../http/responses.js';
import type { Handler } from '../http/router.js';
import { authenticateRequest } from '../protect/authenticate.js';
import { invalidToken, sessionEnded } from '../protect/challenge.js';

/**
 * `GET {base}/oauth2/v1/userinfo` (seed §4.1): who is logged in. Accepts a bearer access token
 * (RFC 6750 §2.1) or the session cookie (the seed's session check, sent with
 * `Accept: application/json`), with exactly the rules of a protected REST operation
 * (`authenticateRequest`): the cookie counts only from the instance origin or an allowed origin.
 * Answers `{ sub, ...claims }`, never cached. Without valid credentials: 401 with
 * `WWW-Authenticate: Bearer realm=…` (plus `error="invalid_token"` when a token was presented).
 * A user deleted since the token or session was issued gets the same 401.
 */
export const userinfoEndpoint: Handler = async (request, ctx) => {
  const caller = await authenticateRequest(ctx, request, { schemes: ['bearer', 'session'] });
  const user = await ctx.users.findUser(caller.sub);
  if (!user) throw caller.scheme === 'bearer' ? invalidToken(ctx) : sessionEnded(ctx, true);
  return noStoreJson({ ...user.claims, sub: user.id }, { headers: { Vary: 'Authorization, Cookie' } });
};
