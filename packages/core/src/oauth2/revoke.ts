import type { ClientRequest, Context, TokenVerifying } from '../context.js';
import { invalidGrant } from '../errors.js';
import { readForm } from '../http/form.js';
import type { Answer } from '../http/reply.js';
import { noStoreJson } from '../http/responses.js';
import { fromEpochSeconds } from '../time.js';
import { verifyAccessTokenSignature } from '../tokens/access-token.js';
import { hashSecret } from '../tokens/secrets.js';
import { authenticateClient } from './client-auth/authenticate-client.js';
import { revokeGrant } from './grants/grant-tokens.js';

/**
 * `POST {base}/oauth2/v1/revoke` (RFC 7009). Answers 200 for unknown, expired and its own revoked
 * tokens (§2.2). A live token issued to another client (or to no client: an Auth API token) is
 * refused and stays active (§2.1: "the request is refused and the client is informed of the
 * error"), with 400 `invalid_grant`: RFC 6749 §5.2 defines it for a grant or refresh token that
 * "was issued to another client", exactly this case. (`invalid_client` would say the client failed
 * to authenticate, which it did not; `unauthorized_client` is about grant types.)
 * `token_type_hint` only orders the lookups. Revoking a refresh token revokes its whole grant,
 * access tokens included; revoking a client's own client_credentials token revokes that token.
 */
export async function revokeEndpoint(
  request: Request,
  ctx: ClientRequest & TokenVerifying & Pick<Context, 'tokens'>,
): Promise<Answer> {
  const params = await readForm(request, ctx.limits.maxBodyBytes);
  const { client } = await authenticateClient(ctx, request, params);
  const token = params.require('token');
  params.get('token_type_hint');
  const now = ctx.clock.now();

  const refresh = await ctx.storage.grants.findRefreshToken(await hashSecret(token), now);
  if (refresh) {
    if (refresh.clientId !== client.id) throw issuedToAnotherClient();
    await revokeGrant(ctx, refresh.grantId);
    ctx.emit({ type: 'token.revoked', clientId: client.id, kind: 'refresh_token' });
    return revoked();
  }
  const access = await verifyAccessTokenSignature(ctx, token);
  if (access) {
    if (access.family !== 'oauth2' || access.clientId !== client.id) throw issuedToAnotherClient();
    await ctx.storage.grants.revokeAccessToken(access.jti, fromEpochSeconds(access.exp));
    ctx.emit({ type: 'token.revoked', clientId: client.id, kind: 'access_token' });
  }
  return revoked();
}

function issuedToAnotherClient() {
  return invalidGrant('The token was not issued to this client; it stays active.');
}

function revoked(): Answer {
  return noStoreJson({});
}
