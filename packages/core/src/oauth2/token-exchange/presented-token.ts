import { decodeJwt, decodeProtectedHeader } from 'jose';
import type { Context, RevocationCheck, TokenVerifying, TrustedJwtVerifying } from '../../context.js';

import { invalidRequest } from '../../errors.js';
import { verifyIdTokenHint } from '../../oidc/id-token.js';
import { userSubject } from '../../storage/subject.js';
import type { ClientRecord } from '../../storage/types.js';
import { toEpochSeconds } from '../../time.js';
import { isAccessTokenRevoked, verifyAccessTokenSignature } from '../../tokens/access-token.js';
import { parseAct } from '../../tokens/act.js';
import { MAX_ASSERTION_LENGTH } from '../jwt-assertion.js';
import { claimedIssuer, normalizedTyp, verifyTrustedJwt } from '../trusted-issuers.js';
import { type ExchangedToken, TOKEN_TYPES } from './exchanged-token.js';

/**
 * What checking a presented token reads: this instance's tokens (signature, revocation, the user
 * still there) and trusted issuers' JWTs.
 */
export type PresentedTokenVerifying = TokenVerifying &
  RevocationCheck &
  TrustedJwtVerifying &
  Pick<Context, 'users'>;

/** Which parameter a token came in: named in the error descriptions. */
export type TokenRole = 'subject_token' | 'actor_token';

const ACCEPTED_TYPES: ReadonlySet<string> = new Set([
  TOKEN_TYPES.accessToken,
  TOKEN_TYPES.idToken,
  TOKEN_TYPES.jwt,
]);

/**
 * Verifies a `subject_token` or `actor_token` of a token exchange (RFC 8693 §2.1) by its issuer:
 *
 * - this instance's access token (`…:access_token`, or `…:jwt` with `typ: at+jwt`): the bearer
 *   check's own verification (signature, issuer, lifetime) and revocation of the token, its grant
 *   and its user; a user's token also needs the user to exist still;
 * - this instance's ID token (`…:id_token`, or `…:jwt`): signature by one of the instance's keys,
 *   issuer, expiry, and an `aud` naming the client exchanging it (an ID token is exchanged by
 *   the client it was issued to, draft-ietf-oauth-identity-assertion-authz-grant §4.3);
 * - a trusted issuer's JWT: no `typ`, or one of its `exchangeTyps` (an ID-JAG, a logout token are
 *   refused), its keys (inline, or its `jwksUri` through the guarded fetch and cache of
 *   `clientJwks`), `iss`, lifetime, the `aud` configured for it, and a `cnf` that is a `jkt`.
 *
 * Anything else, or a token that fails, is 400 `invalid_request` (§2.2.2: "if either the
 * subject_token or actor_token are invalid for any reason").
 */
export async function verifyPresentedToken(
  ctx: PresentedTokenVerifying,
  client: ClientRecord,
  role: TokenRole,
  token: string,
  tokenType: string,
): Promise<ExchangedToken> {
  if (!ACCEPTED_TYPES.has(tokenType)) {
    throw invalidRequest(`The ${role}_type is not supported (use ${[...ACCEPTED_TYPES].join(', ')}).`);
  }
  const invalid = () => invalidRequest(`The ${role} is invalid, expired or revoked.`);
  if (token.length > MAX_ASSERTION_LENGTH) throw invalid();
  const issuer = claimedIssuer(token);
  if (issuer === undefined) throw invalid();
  if (issuer === ctx.issuer) {
    let typ: string | undefined;
    try {
      typ = decodeProtectedHeader(token).typ?.toLowerCase();
    } catch {
      throw invalid();
    }
    const isAccessToken = typ === 'at+jwt' || typ === 'application/at+jwt';
    const verified =
      isAccessToken && tokenType !== TOKEN_TYPES.idToken
        ? await localAccessToken(ctx, token, tokenType)
        : !isAccessToken && tokenType !== TOKEN_TYPES.accessToken
          ? await localIdToken(ctx, client, token, tokenType)
          : null;
    if (!verified) throw invalid();
    return verified;
  }
  const trusted = ctx.tokens.trustedIssuers.get(issuer);
  if (!trusted) throw invalid();
  // RFC 8725 §3.11: a JWT typed for another use (an ID-JAG, a logout token, …) is no subject's
  // token; only untyped JWTs and the types the issuer's `exchangeTyps` lists are exchanged.
  let typ: string | undefined;
  try {
    typ = decodeProtectedHeader(token).typ;
  } catch {
    throw invalid();
  }
  if (typ !== undefined && !trusted.exchangeTyps.has(normalizedTyp(typ)))
    throw invalidRequest(`The ${role} is a JWT of a type (typ) made for another use; it is not exchanged.`);
  const claims = await verifyTrustedJwt(ctx, trusted, token, {
    audience: [trusted.audience],
    requiredClaims: ['sub'],
  });
  const act = parseAct(claims?.act);
  if (!claims || typeof claims.sub !== 'string' || act === null) throw invalid();
  const jkt = confirmationKey(claims.cnf);
  if (jkt === null) throw invalid();
  const scope = typeof claims.scope === 'string' ? claims.scope.split(' ').filter(Boolean) : [];
  const clientId = typeof claims.client_id === 'string' ? claims.client_id : undefined;
  return {
    issuer,
    local: false,
    kind: 'jwt',
    tokenType,
    sub: claims.sub,
    ...(clientId === undefined ? {} : { clientId }),
    scope,
    audience: audienceList(claims.aud),
    ...(act === undefined ? {} : { act }),
    ...(jkt === undefined ? {} : { jkt }),
    exp: claims.exp!,
    claims,
  };
}

/** This instance's access token, verified as the bearer check verifies it, revocation included. */
async function localAccessToken(
  ctx: PresentedTokenVerifying,
  token: string,
  tokenType: string,
): Promise<ExchangedToken | null> {
  const verified = await verifyAccessTokenSignature(ctx, token);
  const claims = verified && !(await isAccessTokenRevoked(ctx, verified)) ? verified : null;
  if (!claims) return null;
  // Off the hot path, as introspection: a deleted user's token is not exchanged even without a mark.
  if (claims.subject.kind === 'user' && !(await ctx.users.findUser(claims.sub))) return null;
  return {
    issuer: ctx.issuer,
    local: true,
    kind: 'access_token',
    tokenType,
    sub: claims.sub,
    subject: claims.subject,
    ...(claims.clientId === undefined ? {} : { clientId: claims.clientId }),
    scope: claims.scope === '' ? [] : claims.scope.split(' '),
    audience: claims.audience,
    ...(claims.act === undefined ? {} : { act: claims.act }),
    ...(claims.jkt === undefined ? {} : { jkt: claims.jkt }),
    exp: claims.exp,
    claims: decodeJwt(token),
  };
}

/**
 * This instance's ID token: the `id_token_hint` verification (signature by the instance's keys in
 * their own algorithm, issuer, not an access token), plus what a hint does not need: an unexpired
 * `exp` and an `aud` naming the client that exchanges it.
 */
async function localIdToken(
  ctx: PresentedTokenVerifying,
  client: ClientRecord,
  token: string,
  tokenType: string,
): Promise<ExchangedToken | null> {
  const hint = await verifyIdTokenHint(ctx, token);
  if (!hint?.audiences.includes(client.id)) return null;
  // The signature verified: the payload is the one signed.
  const claims = decodeJwt(token);
  const now = toEpochSeconds(ctx.clock.now());
  if (typeof claims.exp !== 'number' || claims.exp + ctx.clock.toleranceSeconds <= now) return null;
  if (!(await ctx.users.findUser(hint.sub))) return null;
  return {
    issuer: ctx.issuer,
    local: true,
    kind: 'id_token',
    tokenType,
    sub: hint.sub,
    subject: userSubject(hint.sub),
    clientId: client.id,
    scope: [],
    audience: hint.audiences,
    exp: claims.exp,
    claims,
  };
}

/**
 * The DPoP key a trusted issuer's token is bound to: `cnf.jkt` (RFC 9449 §6.1); `undefined`
 * without `cnf`; `null` for a `cnf` this server cannot check (another confirmation method, such as
 * mTLS's `x5t#S256`, RFC 8705 §3.1): such a token is sender-constrained, and exchanging it for one
 * that is not would drop the constraint, so it is refused (fail closed).
 */
function confirmationKey(cnf: unknown): string | undefined | null {
  if (cnf === undefined) return undefined;
  const jkt = typeof cnf === 'object' && cnf !== null ? (cnf as { jkt?: unknown }).jkt : undefined;
  return typeof jkt === 'string' && jkt !== '' ? jkt : null;
}

/** The `aud` claim as a list (absent: empty). */
function audienceList(aud: unknown): readonly string[] {
  if (typeof aud === 'string') return [aud];
  return Array.isArray(aud) ? aud.filter((value): value is string => typeof value === 'string') : [];
}
