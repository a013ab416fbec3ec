import type { Context } from '../../context.js';
import type { ClientRecord, RefreshTokenRecord } from '../../storage/types.js';
import { type SignedAccessToken, signAccessToken } from '../../tokens/access-token.js';
import { hashSecret, randomSecret } from '../../tokens/secrets.js';

/** The grant tokens are issued from: one user's authorization of one client, for a scope. */
export interface GrantSubject {
  readonly grantId: string;
  readonly clientId: string;
  readonly userId: string;
  readonly scope: string;
}

/** Grant types a client may use: its registration, by default both of Gatehouse's. */
export function clientMayUse(
  client: ClientRecord,
  grantType: 'authorization_code' | 'refresh_token',
): boolean {
  return (client.grantTypes ?? ['authorization_code', 'refresh_token']).includes(grantType);
}

/** How long a grant revocation must be remembered: as long as anything of the grant can live. */
export function grantLifetimeMs(ctx: Context): number {
  return Math.max(ctx.refreshTokenTtl, ctx.accessTokenTtl) * 1000;
}

/** Revokes a grant (its refresh tokens, codes and access tokens) for as long as it matters. */
export function revokeGrant(ctx: Context, grantId: string): Promise<void> {
  return ctx.storage.grants.revokeGrant(grantId, ctx.now() + grantLifetimeMs(ctx));
}

/** An OAuth 2.0 access token of the grant, for `scope` (the grant's, or a narrower one). */
export function grantAccessToken(
  ctx: Context,
  grant: GrantSubject,
  scope = grant.scope,
): Promise<SignedAccessToken> {
  return signAccessToken(ctx, {
    family: 'oauth2',
    sub: grant.userId,
    clientId: grant.clientId,
    scope,
    grantId: grant.grantId,
    ttl: ctx.accessTokenTtl,
  });
}

/**
 * A new refresh token of the grant and the record to store for it (by hash). It always carries
 * the grant's full scope (RFC 6749 §6), so a narrowed refresh can widen back later.
 */
export async function newRefreshToken(
  ctx: Context,
  grant: GrantSubject,
  now: number,
): Promise<{ token: string; record: RefreshTokenRecord }> {
  const token = randomSecret(ctx.randomBytes);
  return {
    token,
    record: {
      tokenHash: await hashSecret(token),
      grantId: grant.grantId,
      clientId: grant.clientId,
      userId: grant.userId,
      scope: grant.scope,
      issuedAt: now,
      expiresAt: now + ctx.refreshTokenTtl * 1000,
    },
  };
}
