import { decodeProtectedHeader, jwtVerify } from 'jose';
import type { Awaitable } from '../awaitable.js';
import type { Context } from '../context.js';
import { base64url, utf8 } from './encoding.js';

/** Which issuing path produced an access token. */
export type TokenFamily = 'oauth2' | 'auth_api';

/** What an access token says, once verified. */
export interface AccessTokenClaims {
  readonly family: TokenFamily;
  /** The user. */
  readonly sub: string;
  /** The OAuth client (absent for Auth API tokens, which no client requested). */
  readonly clientId?: string;
  /** Space-separated scope (may be empty). */
  readonly scope: string;
  /** Token id (`jti`), the handle of single-token revocation. */
  readonly jti: string;
  /** The grant the token belongs to (`gid`), the handle of grant revocation. */
  readonly grantId?: string;
  /** Epoch seconds. */
  readonly iat: number;
  /** Epoch seconds. */
  readonly exp: number;
}

/** What to put in a new access token. */
export interface AccessTokenGrant {
  readonly family: TokenFamily;
  readonly sub: string;
  readonly clientId?: string;
  readonly scope: string;
  readonly grantId?: string;
  /** Lifetime in seconds. */
  readonly ttl: number;
}

/** A freshly signed access token. */
export interface SignedAccessToken {
  readonly token: string;
  readonly claims: AccessTokenClaims;
}

/**
 * Signs an access token as a JWT per RFC 9068: header `typ: at+jwt` and `kid`; claims `iss`, `sub`,
 * `aud`, `client_id`, `scope`, `iat`, `exp`, `jti`, plus Gatehouse's `token_family` and `gid`.
 *
 * The JWS compact serialisation (RFC 7515 §7.1) is assembled here rather than through jose's
 * `SignJWT`: the header is constant per key and pre-encoded (`KeySet.encodedHeader`), the
 * claims are a fixed, validated shape, and the key is bound once (`KeySet.sign`); this halves
 * the cost of a token on Node. Verification stays with jose (`jwtVerify`), and tests check that
 * jose accepts every token signed here.
 */
export async function signAccessToken(ctx: Context, grant: AccessTokenGrant): Promise<SignedAccessToken> {
  const iat = Math.floor(ctx.now() / 1000);
  const exp = iat + grant.ttl;
  const jti = base64url(ctx.randomBytes(16));
  const payload: Record<string, unknown> = {
    iss: ctx.issuer,
    sub: grant.sub,
    aud: ctx.audience,
    iat,
    exp,
    jti,
    token_family: grant.family,
    scope: grant.scope,
  };
  if (grant.clientId !== undefined) payload.client_id = grant.clientId;
  if (grant.grantId !== undefined) payload.gid = grant.grantId;
  const signingInput = `${ctx.keys.encodedHeader}.${base64url(utf8(JSON.stringify(payload)))}`;
  const token = `${signingInput}.${await ctx.keys.sign(signingInput)}`;
  return {
    token,
    claims: {
      family: grant.family,
      sub: grant.sub,
      clientId: grant.clientId,
      scope: grant.scope,
      jti,
      grantId: grant.grantId,
      iat,
      exp,
    },
  };
}

/**
 * Verifies an access token's signature (by `kid`, with the instance algorithm only: never `none`),
 * `typ` (`at+jwt`, so ID tokens and other JWTs are refused, RFC 9068 §4), issuer, audience and
 * lifetime (with the configured clock tolerance), and shape. Returns `null` for anything invalid.
 * Does **not** consult revocation: see {@link verifyAccessToken}. Verified tokens are remembered
 * in the instance's `VerifiedTokenCache` until their `exp`, so a token seen again costs a map
 * lookup instead of a signature check.
 */
export async function verifyAccessTokenSignature(
  ctx: Context,
  token: string,
): Promise<AccessTokenClaims | null> {
  if (token.length > 8192) return null;
  const cached = cachedAccessTokenClaims(ctx, token);
  if (cached) return cached;
  const now = ctx.now();
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    return null;
  }
  const key = kid === undefined ? undefined : ctx.keys.verificationKeys.get(kid);
  if (!key) return null;
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: [ctx.keys.algorithm],
      typ: 'at+jwt',
      issuer: ctx.issuer,
      audience: ctx.audience,
      clockTolerance: ctx.clockToleranceSeconds,
      currentDate: new Date(now),
      requiredClaims: ['sub', 'exp', 'iat', 'jti'],
    });
    const family = payload.token_family;
    const scope = payload.scope ?? '';
    const clientId = payload.client_id;
    const grantId = payload.gid;
    if (family !== 'oauth2' && family !== 'auth_api') return null;
    if (typeof scope !== 'string' || typeof payload.sub !== 'string' || typeof payload.jti !== 'string')
      return null;
    if (clientId !== undefined && typeof clientId !== 'string') return null;
    if (grantId !== undefined && typeof grantId !== 'string') return null;
    if (family === 'oauth2' && clientId === undefined) return null;
    const claims: AccessTokenClaims = {
      family,
      sub: payload.sub,
      clientId,
      scope,
      jti: payload.jti,
      grantId,
      iat: payload.iat!,
      exp: payload.exp!,
    };
    ctx.verifiedTokens.set(token, claims, payload.nbf);
    return claims;
  } catch {
    return null;
  }
}

/**
 * The claims of a token verified before, while its own lifetime still passes (see the cache);
 * `undefined` for a token never verified, or no longer valid. Revocation is not consulted: see
 * {@link unlessRevoked}.
 */
export function cachedAccessTokenClaims(ctx: Context, token: string): AccessTokenClaims | undefined {
  return ctx.verifiedTokens.get(token, Math.floor(ctx.now() / 1000), ctx.clockToleranceSeconds);
}

/**
 * Verifies an access token fully: signature and claims, then revocation (of the token or its grant).
 * A token verified before is answered without waiting a turn when the grant store answers
 * revocation synchronously (the memory engine does). A failing store throws or rejects.
 */
export function verifyAccessToken(ctx: Context, token: string): Awaitable<AccessTokenClaims | null> {
  const cached = cachedAccessTokenClaims(ctx, token);
  if (cached) return unlessRevoked(ctx, cached);
  return verifyAccessTokenSignature(ctx, token).then((claims) => claims && unlessRevoked(ctx, claims));
}

/**
 * `claims`, or `null` when its token or its grant was revoked: asked of storage on every use, never
 * cached, so a revocation holds at once (on every instance sharing the store).
 */
export function unlessRevoked(ctx: Context, claims: AccessTokenClaims): Awaitable<AccessTokenClaims | null> {
  const revoked = ctx.storage.grants.isRevoked(claims.jti, claims.grantId, ctx.now());
  if (typeof revoked === 'boolean') return revoked ? null : claims;
  // Anything else is taken as a promise (or a thenable of another realm) of the answer.
  return Promise.resolve(revoked).then((isRevoked) => (isRevoked ? null : claims));
}
