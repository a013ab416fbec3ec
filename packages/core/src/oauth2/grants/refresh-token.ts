import type { TokenIssuing } from '../../context.js';
import type { DpopProof } from '../../dpop/proof.js';
import { invalidGrant, invalidScope } from '../../errors.js';
import type { Params } from '../../http/form.js';
import type { Answer } from '../../http/reply.js';
import { grantIdToken } from '../../oidc/grant-id-token.js';
import { secretHash } from '../../tokens/secrets.js';
import type { AuthenticatedClient } from '../client-auth/authenticate-client.js';
import { requestedResources, tokenAudience } from '../resource-indicators.js';
import { isScopeSubset, parseScope } from '../scope.js';
import { boundJkt, withBinding } from '../token-request-proof.js';
import { tokenResponse } from '../token-response.js';
import { clientMayUse, grantAccessToken, newRefreshToken, revokeGrant, tokenIssued } from './grant-tokens.js';

/**
 * `grant_type=refresh_token` (RFC 6749 §6). The token is bound to its client; the scope may narrow,
 * never widen. With rotation (the default), the presented token is exchanged atomically for a new
 * one, and presenting an already rotated token revokes the whole grant (RFC 9700 §4.14.2).
 */
export async function refreshTokenGrant(
  ctx: TokenIssuing,
  params: Params,
  { client }: AuthenticatedClient,
  dpop?: DpopProof,
): Promise<Answer> {
  const presented = params.require('refresh_token');
  const requestedScope = params.get('scope');
  const resources = requestedResources(params);
  if (!clientMayUse(client, 'refresh_token')) {
    throw invalidGrant('The client may not use refresh tokens.');
  }
  const now = ctx.clock.now();
  const tokenHash = await secretHash(presented);
  const record = await ctx.storage.grants.findRefreshToken(tokenHash, now);
  // A record without a subject comes from an engine still on storage v1: refused, never a 500.
  if (!record || record.clientId !== client.id || record.subject === undefined)
    throw invalidGrant('The refresh token is invalid, expired or revoked.');
  // RFC 9449 §5: a bound refresh token (a public client's) is used with a proof of its key only.
  const refreshJkt = boundJkt(record.ext);
  if (refreshJkt !== undefined && dpop?.jkt !== refreshJkt)
    throw invalidGrant('The refresh token is bound to another DPoP key.');
  if (record.rotatedAt !== undefined) return reused(ctx, record.grantId, client.id);
  // A deleted user's grants end with the user (sessions do the same through `sessionUser`). A
  // client subject is the authenticated client itself, found a moment ago.
  if (record.subject.kind === 'user' && !(await ctx.users.findUser(record.subject.userId))) {
    await revokeGrant(ctx, record.grantId);
    throw invalidGrant('The refresh token is invalid, expired or revoked.');
  }
  // Without a `scope` parameter the grant's own scope is kept (RFC 6749 §6), a subset of itself.
  const scope = requestedScope === undefined ? record.scope : parseScope(requestedScope).join(' ');
  if (requestedScope !== undefined && !isScopeSubset(scope, record.scope))
    throw invalidScope('A refresh may narrow the scope of the grant, never widen it.');

  // RFC 8707 §2.2: a refresh may narrow the resources too; the new refresh token keeps them all.
  const access = await grantAccessToken(
    ctx,
    record,
    scope,
    tokenAudience(ctx, record.audience, resources),
    dpop?.jkt,
  );
  const tokenType = dpop ? 'DPoP' : 'Bearer';
  // Core §12.2: the same sub and the original auth_time; no nonce.
  const idToken = await grantIdToken(
    ctx,
    client,
    scope === record.scope ? record : { ...record, scope },
    access.token,
  );
  if (!ctx.tokens.rotateRefreshTokens) {
    ctx.emit(tokenIssued(client.id, record.subject, 'refresh_token'));
    return tokenResponse({
      accessToken: access.token,
      tokenType,
      expiresIn: ctx.tokens.accessTokenTtl,
      scope,
      idToken,
    });
  }
  // A public client's refresh token, once used with a proof, stays bound to that key.
  const bound =
    client.type === 'public' && dpop !== undefined
      ? { ...record, ext: withBinding(record.ext, dpop.jkt) }
      : record;
  const next = await newRefreshToken(ctx, bound, now);
  const result = await ctx.storage.grants.rotateRefreshToken(tokenHash, next.record, now);
  if (result.status === 'reused') return reused(ctx, record.grantId, client.id);
  if (result.status === 'invalid') throw invalidGrant('The refresh token is invalid, expired or revoked.');
  ctx.emit(tokenIssued(client.id, record.subject, 'refresh_token'));
  return tokenResponse({
    accessToken: access.token,
    tokenType,
    expiresIn: ctx.tokens.accessTokenTtl,
    refreshToken: next.token,
    scope,
    idToken,
  });
}

async function reused(ctx: TokenIssuing, grantId: string, clientId: string): Promise<never> {
  await revokeGrant(ctx, grantId);
  ctx.emit({ type: 'refresh_token.reused', clientId, grantId });
  throw invalidGrant('The refresh token has already been used; the grant is revoked.');
}
