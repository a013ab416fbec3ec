import type { ClientRequest, TokenVerifying } from '../context.js';
import type { Answer } from '../http/reply.js';
import { noStoreJson } from '../http/responses.js';
import { fromEpochSeconds } from '../time.js';
import { verifyAccessTokenSignature } from '../tokens/access-token.js';
import { readTokenCaller } from './token-caller.js';

/**
 * `POST {base}/auth/v1/token/revoke`: 200 `{}` and idempotent, like RFC 7009 §2.2 (an unknown,
 * expired or already revoked token is not an error). Afterwards the token is refused everywhere:
 * its `jti` is on the revocation list until the token would have expired.
 *
 * - With `Authorization: Bearer <token>` and no body, the token revokes itself (logout). This works
 *   for any access token of the instance: holding a token is all it takes to use it, so it is
 *   enough to give it up.
 * - With a confidential client's Basic credentials and a `token` form field, that token is revoked
 *   if it is an Auth API token (e.g. a backend logging its user out). OAuth 2.0 tokens are left
 *   untouched here (RFC 7009 §2.1 binds them to their client's `/oauth2/v1/revoke`).
 */
export async function authApiRevokeEndpoint(
  request: Request,
  ctx: ClientRequest & TokenVerifying,
): Promise<Answer> {
  const caller = await readTokenCaller(request, ctx);
  const claims = await verifyAccessTokenSignature(ctx, caller.token);
  if (claims && (caller.kind === 'bearer' || claims.family === 'auth_api')) {
    await ctx.storage.grants.revokeAccessToken(claims.jti, fromEpochSeconds(claims.exp));
    ctx.emit({
      type: 'token.revoked',
      ...(caller.kind === 'client' ? { clientId: caller.client.id } : {}),
      kind: 'access_token',
    });
  }
  return noStoreJson({});
}
