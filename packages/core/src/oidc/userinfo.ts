import type { Context } from '../context.js';
import type { DpopChecks } from '../dpop/proof.js';
import { noStoreJson } from '../http/responses.js';
import type { Handler } from '../http/router.js';
import { authenticateRequest, authenticationPlan } from '../protect/authenticate.js';
import { invalidToken, sessionEnded } from '../protect/challenge.js';
import { dpopInvalidToken } from '../protect/dpop-challenge.js';
import { hostClaims } from '../tokens/host-claims.js';
import { claimsForScope } from './standard-claims.js';

/** Who may ask: a bearer token granted `openid`, or the session (see below). */
const USERINFO_CALLERS = authenticationPlan({ schemes: ['bearer', 'session'], scope: 'openid' });

/**
 * `GET` and `POST {base}/oauth2/v1/userinfo` (OpenID Connect Core §5.3): who is logged in.
 * Accepts a bearer access token (RFC 6750 §2.1), a DPoP-bound one with its proof (RFC 9449 §7), or the session cookie (the session check,
 * sent with `Accept: application/json`), with exactly the rules of a protected REST operation
 * (`authenticateRequest`): the cookie counts only from the instance origin or an allowed origin.
 * A bearer token must have been granted `openid` (else 403 `insufficient_scope` with
 * `scope="openid"` in the challenge) and gets `sub` and the standard claims of the scopes it was
 * granted (Core §5.4), never others; the session, which is the user themself, gets
 * `{ sub, ...claims }`. Never cached. Without
 * valid credentials: 401 with `WWW-Authenticate: Bearer realm=…` (plus `error="invalid_token"` when
 * a token was presented). A user deleted since the token or session was issued gets the same 401.
 */
export const userinfoEndpoint =
  (dpop: DpopChecks): Handler =>
  async (
    request,
    ctx: Pick<
      Context,
      | 'issuer'
      | 'site'
      | 'clock'
      | 'logger'
      | 'storage'
      | 'clients'
      | 'users'
      | 'keys'
      | 'tokens'
      | 'limits'
      | 'session'
    >,
  ) => {
    // Core §5.3: the access token is one "obtained through an OpenID Connect Authentication
    // Request", i.e. granted `openid`; any other is 403 insufficient_scope (RFC 6750 §3.1). The
    // session is the user asking about themself and carries no scope.
    const caller = await authenticateRequest(ctx, dpop, request, USERINFO_CALLERS);
    const user = await ctx.users.findUser(caller.sub);
    // A token whose user is gone is as good as revoked (and says so: it was validly signed).
    if (!user) {
      if (caller.scheme !== 'bearer') throw sessionEnded(ctx, true);
      // A DPoP-bound token was presented with the DPoP scheme: the challenge names that scheme (RFC 9449 §7.1).
      throw caller.dpopJkt === undefined ? invalidToken(ctx, 'revoked') : dpopInvalidToken(dpop, 'revoked');
    }
    const claims =
      caller.scheme === 'bearer' ? claimsForScope(user.claims, caller.scope.join(' ')) : user.claims;
    const extra = await hostClaims(ctx, {
      target: 'userinfo',
      sub: user.id,
      subjectKind: 'user',
      ...(caller.clientId === undefined ? {} : { clientId: caller.clientId }),
      scopes: caller.scope,
      resources: [],
      user,
    });
    return noStoreJson({ ...claims, ...extra, sub: user.id }, { headers: { Vary: 'Authorization, Cookie' } });
  };
