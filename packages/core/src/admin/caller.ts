import type { Context } from '../context.js';
import type { DpopChecks } from '../dpop/proof.js';
import { oauthError } from '../errors.js';
import type { AdminActor } from '../events.js';
import { isForeignBrowserRequest } from '../http/origin.js';
import { type AuthenticationPlan, authenticateRequest, authenticationPlan } from '../protect/authenticate.js';
import { bearerChallenge } from '../protect/challenge.js';
import type { AdminSettings } from './settings.js';

/** What {@link adminCaller} reads of the instance: what the bearer and DPoP checks read. */
export type AdminCallerContext = Pick<
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
>;

/**
 * Who calls the admin API, refusing everyone else, in this order:
 * 1. a cross-site browser request (a foreign `Origin`, `Sec-Fetch-Site: cross-site` or
 *    `same-site`): 403 `forbidden`. The admin API answers no CORS, and a page of another site has
 *    no business there even with a token;
 * 2. no token, or one this instance does not accept (another issuer, another audience, expired,
 *    revoked, a DPoP-bound token without its proof): the instance's own bearer and DPoP checks
 *    (`authenticateRequest`, RFC 6750 §3.1, RFC 9449 §7), 401 with `WWW-Authenticate`;
 * 3. a token without the admin scope: 403 `insufficient_scope` naming it;
 * 4. a caller the host's `admin.authorize` does not allow (or a hook that throws): 403
 *    `insufficient_scope` (RFC 6750 §3.1: the request needs higher privileges than the token's).
 */
export async function adminCaller(
  ctx: AdminCallerContext,
  dpop: DpopChecks,
  settings: Pick<AdminSettings, 'scope' | 'authorize'>,
  plan: AuthenticationPlan,
  request: Request,
): Promise<AdminActor> {
  if (isForeignBrowserRequest(ctx, request))
    throw oauthError('forbidden', 'The admin API refuses cross-site requests.');
  const caller = await authenticateRequest(ctx, dpop, request, plan);
  let allowed: unknown;
  try {
    allowed = await settings.authorize(caller);
  } catch (error) {
    ctx.logger.error('gatehouse: admin.authorize threw; the caller is refused', error);
    allowed = false;
  }
  if (allowed !== true) {
    const description = 'This caller may not administer the instance.';
    throw oauthError('insufficient_scope', description, {
      challenge: bearerChallenge(ctx, {
        error: 'insufficient_scope',
        error_description: description,
        scope: settings.scope,
      }),
      reason: 'admin.authorize refused the caller',
    });
  }
  return {
    ...(caller.clientId === undefined ? {} : { clientId: caller.clientId }),
    subject: caller.sub,
    subjectType: caller.subject.kind,
  };
}

/** The options of the admin API's token check: bearer (and DPoP) tokens of users and clients. */
export function adminAuthentication(scope: string): AuthenticationPlan {
  return authenticationPlan({ schemes: ['bearer'], scope, subjects: ['user', 'client'] });
}
