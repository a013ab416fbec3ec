import type { Context } from '../context.js';
import { readForm } from '../http/form.js';
import type { Answer } from '../http/reply.js';
import { noStoreJson } from '../http/responses.js';
import { fromEpochSeconds } from '../time.js';
import { verifyAccessTokenSignature } from '../tokens/access-token.js';
import { hashSecret } from '../tokens/secrets.js';
import { authenticateClient } from './client-auth/authenticate-client.js';
import { revokeGrant } from './grants/grant-tokens.js';

/**
 * `POST {base}/oauth2/v1/revoke` (RFC 7009). Answers 200 for unknown and already revoked tokens
 * (§2.2) and for tokens of other clients, which it leaves untouched (§2.1). `token_type_hint` only
 * orders the lookups. Revoking a refresh token revokes its whole grant, access tokens included.
 */
export async function revokeEndpoint(request: Request, ctx: Context): Promise<Answer> {
  const params = await readForm(request, ctx.maxBodyBytes);
  const { client } = await authenticateClient(ctx, request, params);
  const token = params.require('token');
  params.get('token_type_hint');
  const now = ctx.now();

  const refresh = await ctx.storage.grants.findRefreshToken(await hashSecret(token), now);
  if (refresh) {
    if (refresh.clientId === client.id) {
      await revokeGrant(ctx, refresh.grantId);
      ctx.emit({ type: 'token.revoked', clientId: client.id, kind: 'refresh_token' });
    }
    return revoked();
  }
  const access = await verifyAccessTokenSignature(ctx, token);
  if (access && access.family === 'oauth2' && access.clientId === client.id) {
    await ctx.storage.grants.revokeAccessToken(access.jti, fromEpochSeconds(access.exp));
    ctx.emit({ type: 'token.revoked', clientId: client.id, kind: 'access_token' });
  }
  return revoked();
}

function revoked(): Answer {
  return noStoreJson({});
}
