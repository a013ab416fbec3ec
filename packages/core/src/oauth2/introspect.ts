import type { Context } from '../context.js';
import { invalidClient } from '../errors.js';
import { readForm } from '../http/form.js';
import type { Answer } from '../http/reply.js';
import { noStoreJson } from '../http/responses.js';
import { type AccessTokenClaims, verifyAccessToken } from '../tokens/access-token.js';
import { hashSecret } from '../tokens/secrets.js';
import { authenticateClient } from './client-auth.js';

/** RFC 7662 §2.2 answer for an inactive token: exactly `{"active": false}`. */
export const INACTIVE = Object.freeze({ active: false });

/** RFC 7662 §2.2 fields of an active access token. */
export function introspectAccessToken(ctx: Context, claims: AccessTokenClaims): Record<string, unknown> {
  return {
    active: true,
    token_type: 'Bearer',
    scope: claims.scope,
    ...(claims.clientId ? { client_id: claims.clientId } : {}),
    sub: claims.sub,
    aud: ctx.audience,
    iss: ctx.issuer,
    exp: claims.exp,
    iat: claims.iat,
    jti: claims.jti,
    token_family: claims.family,
  };
}

/**
 * `POST {base}/oauth2/v1/introspect` (RFC 7662). Only confidential clients may introspect, and only
 * their own tokens: another client's token is reported inactive, so introspection reveals nothing
 * about tokens the caller does not own.
 */
export async function introspectEndpoint(request: Request, ctx: Context): Promise<Answer> {
  const params = await readForm(request, ctx.maxBodyBytes);
  const { client, method } = await authenticateClient(ctx, request, params);
  // RFC 7662 §2.1: the caller must authenticate; a public client has no credentials (§2.3: 401).
  if (method === 'none') throw invalidClient(ctx.realm);
  const token = params.require('token');
  params.get('token_type_hint');
  const now = ctx.now();

  const access = await verifyAccessToken(ctx, token);
  if (access) {
    return noStoreJson(access.clientId === client.id ? introspectAccessToken(ctx, access) : INACTIVE);
  }
  const refresh = await ctx.storage.grants.findRefreshToken(await hashSecret(token), now);
  if (refresh && refresh.rotatedAt === undefined && refresh.clientId === client.id) {
    return noStoreJson({
      active: true,
      token_type: 'refresh_token',
      scope: refresh.scope,
      client_id: refresh.clientId,
      sub: refresh.userId,
      iss: ctx.issuer,
      exp: Math.floor(refresh.expiresAt / 1000),
      iat: Math.floor(refresh.issuedAt / 1000),
    });
  }
  return noStoreJson(INACTIVE);
}
