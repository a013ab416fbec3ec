import type { AccessTokenCheck, ClientRequest, Context } from '../context.js';
import type { Answer } from '../http/reply.js';
import { noStoreJson } from '../http/responses.js';
import { inactive, introspectAccessToken, NOT_VERIFIED, userExists } from '../oauth2/introspect.js';
import { checkAccessToken } from '../tokens/access-token.js';
import { readTokenCaller } from './token-caller.js';

/**
 * `POST {base}/auth/v1/token/introspect`, answered in the RFC 7662 §2.2 shape (`active`, `sub`,
 * `exp`, `iat`, `token_type`, `token_family`, …), exactly `{"active":false}` when the token is not
 * active, always 200 and never cached.
 *
 * - With `Authorization: Bearer <token>` and no body: self-introspection. An expired, revoked or
 *   unknown token is answered `{"active":false}`, not 401: the question is whether it is active.
 *   Any access token of this instance may ask about itself; the answer holds nothing its holder
 *   could not read in the JWT already.
 * - With a confidential client's Basic credentials and a `token` form field: introspects that
 *   token, if it is an Auth API token (no client owns those, so any confidential client, such as a
 *   resource server, may ask). OAuth 2.0 tokens are reported inactive here, keeping the families
 *   apart: clients introspect those at `/oauth2/v1/introspect`.
 *
 * A token of a revoked user (`revokeUser`) or of a user the user store no longer finds is inactive.
 */
export async function authApiIntrospectEndpoint(
  request: Request,
  ctx: ClientRequest & AccessTokenCheck & Pick<Context, 'users' | 'logger'>,
): Promise<Answer> {
  const caller = await readTokenCaller(request, ctx);
  const claims = await checkAccessToken(ctx, caller.token);
  if (typeof claims === 'string') return inactive(ctx, request, `asked about ${NOT_VERIFIED[claims]}`);
  if (caller.kind === 'client' && claims.family !== 'auth_api')
    return inactive(
      ctx,
      request,
      'a client asked about an OAuth 2.0 access token: clients introspect those at /oauth2/v1/introspect',
    );
  if (!(await userExists(ctx, claims.sub)))
    return inactive(ctx, request, 'asked about an access token whose user no longer exists');
  return noStoreJson(introspectAccessToken(ctx, claims));
}
