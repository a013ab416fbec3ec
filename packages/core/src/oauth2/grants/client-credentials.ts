import type { TokenIssuing } from '../../context.js';
import type { DpopProof } from '../../dpop/proof.js';
import { invalidScope, oauthError } from '../../errors.js';
import type { Params } from '../../http/form.js';
import type { Answer } from '../../http/reply.js';
import { clientSubject } from '../../storage/subject.js';
import { signAccessToken } from '../../tokens/access-token.js';
import { type AuthorizationDetailsService, requestedDetails } from '../authorization-details/feature.js';
import type { AuthenticatedClient } from '../client-auth/authenticate-client.js';
import { CLIENT_AUTH_METHODS } from '../client-auth/methods.js';
import { authorizedResources, requestedResources } from '../resource-indicators.js';
import { resolveRequestedScope } from '../scope.js';
import { tokenResponse } from '../token-response.js';
import { tokenIssued } from './grant-tokens.js';

/**
 * `grant_type=client_credentials` (RFC 6749 §4.4): a confidential client obtains an access token
 * for itself. Its `sub` is the client id and it carries `sub_kind: "client"` (RFC 9068 §2.2), so
 * that protected operations, introspection and revocation see a client caller, never a user.
 *
 * - Only clients that prove their identity (§4.4: "MUST only be used by confidential clients"),
 *   registered with the grant type (checked by the token endpoint).
 * - The scope must be within the client's registered scopes (§3.3, `invalid_scope`); without one,
 *   the instance's `defaultScope`. `openid` is refused: an ID token speaks about a user
 *   (OpenID Connect Core §2), and there is none.
 * - `resource` (RFC 8707) as at the other grants: the token's `aud` is exactly the resources asked
 *   for, each known to the instance and allowed to the client, else `invalid_target`.
 * - No refresh token (§4.4.3: "A refresh token SHOULD NOT be included"): the client asks again.
 */
export async function clientCredentialsGrant(
  ctx: TokenIssuing,
  params: Params,
  { client, method }: AuthenticatedClient,
  dpop?: DpopProof,
  details?: AuthorizationDetailsService,
): Promise<Answer> {
  if (client.type !== 'confidential' || !CLIENT_AUTH_METHODS[method]?.provesIdentity) {
    throw oauthError(
      'unauthorized_client',
      'Only confidential clients may use the client_credentials grant.',
    );
  }
  const scope = resolveRequestedScope(ctx, client, params.get('scope'));
  if (scope.split(' ').includes('openid')) {
    throw invalidScope('The scope "openid" needs a user; the client_credentials grant has none.');
  }
  // RFC 8707 §2.2: the token is for the resources asked for, if the instance (and the client's
  // registration) knows them; else for the instance's default audience.
  const audience = authorizedResources(ctx, client, requestedResources(params));
  // RFC 9396 §6: a client acting for itself may ask for details too, checked for it by their types.
  const authorizationDetails = requestedDetails(details, params, client);
  const subject = clientSubject(client.id);
  const access = await signAccessToken(ctx, {
    family: 'oauth2',
    subject,
    clientId: client.id,
    scope,
    ...(audience === undefined ? {} : { audience }),
    ...(dpop === undefined ? {} : { jkt: dpop.jkt }),
    ...(authorizationDetails === undefined ? {} : { authorizationDetails }),
    ttl: ctx.tokens.accessTokenTtl,
  });
  ctx.emit(tokenIssued(client.id, subject, 'client_credentials'));
  return tokenResponse({
    accessToken: access.token,
    tokenType: dpop ? 'DPoP' : 'Bearer',
    expiresIn: ctx.tokens.accessTokenTtl,
    scope,
    authorizationDetails,
  });
}
