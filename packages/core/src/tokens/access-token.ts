import { decodeProtectedHeader, jwtVerify } from 'jose';
import type { Awaitable } from '../awaitable.js';
import type { AccessTokenCheck, RevocationCheck, TokenSigning, TokenVerifying } from '../context.js';
import { base64url, utf8 } from '../crypto/encoding.js';
import { isB64Token } from '../http/bearer.js';
import { clientSubject, subjectId, userSubject } from '../storage/subject.js';
import type { Subject } from '../storage/types.js';
import { fromEpochSeconds, type Seconds, toEpochSeconds } from '../time.js';
import type { Writable } from '../writable.js';
import type { AccessTokenClaims, TokenFamily } from './access-token-claims.js';
import { type ActClaim, parseAct } from './act.js';
import { type AuthorizationDetail, authorizationDetailsClaim } from './authorization-details.js';
import { hostClaims } from './host-claims.js';
import { jsonString } from './json-string.js';
import { freshKeySet, verificationKeyOf } from './keys.js';

export type { AccessTokenClaims, TokenFamily } from './access-token-claims.js';

/**
 * Why an access token was refused (RFC 6750 §3.1 `invalid_token`), as far as it may be said:
 * `expired`, `revoked`, `issuer` (signed with this instance's key for another issuer) and
 * `audience` (not for this API) are told only about tokens whose signature verified, since a
 * token this server signed belongs to its holder; anything else (malformed, unknown key, bad
 * signature, wrong type or shape) is `invalid`, and nothing more is said about it.
 */
export type TokenRejection = 'invalid' | 'expired' | 'revoked' | 'issuer' | 'audience';

/** What to put in a new access token. */
export interface AccessTokenGrant {
  readonly family: TokenFamily;
  readonly subject: Subject;
  readonly clientId?: string;
  readonly scope: string;
  /** The grant's resources; absent: the instance's configured `audience`. */
  readonly audience?: readonly string[];
  readonly grantId?: string;
  /** The actor (RFC 8693 §4.1), for a token issued by token exchange to someone acting for the subject. */
  readonly act?: ActClaim;
  /** Bind the token to this DPoP key (`cnf.jkt`, RFC 9449 §6.1). */
  readonly jkt?: string;
  /** The authorization details the token grants (RFC 9396 §9.1), checked by their types already. */
  readonly authorizationDetails?: readonly AuthorizationDetail[];
  readonly ttl: Seconds;
}

/** A freshly signed access token. */
export interface SignedAccessToken {
  readonly token: string;
  readonly claims: AccessTokenClaims;
}

/**
 * Signs an access token as a JWT per RFC 9068: header `typ: at+jwt` and `kid`; claims `iss`, `sub`,
 * `aud`, `client_id`, `scope`, `iat`, `exp`, `jti`, plus Gatehouse's `token_family`, `gid` and, for a
 * client acting for itself, `sub_kind: "client"` (its `sub` is then its client id, RFC 9068 §2.2);
 * OAuth tokens also carry the host's `claims` hook's claims (never a protocol one).
 * `aud` is the grant's resources when it has some, else the configured audience (one string).
 *
 * The JWS compact serialisation (RFC 7515 §7.1) is assembled here rather than through jose's
 * `SignJWT`: the header is constant per key and pre-encoded (`KeySet.encodedHeader`), the
 * claims are a fixed, validated shape, and the key is bound once (`KeySet.sign`); this halves
 * the cost of a token on Node. Verification stays with jose (`jwtVerify`), and tests check that
 * jose accepts every token signed here.
 */
export async function signAccessToken(
  ctx: TokenSigning,
  grant: AccessTokenGrant,
): Promise<SignedAccessToken> {
  const iat = toEpochSeconds(ctx.clock.now());
  const exp = iat + grant.ttl;
  const jti = base64url(ctx.randomBytes(16));
  const sub = subjectId(grant.subject);
  const audience = grant.audience?.length ? grant.audience : ctx.tokens.audienceList;
  // The host's claims first: the protocol claims below are set after them, and win. Without a
  // hook there are none, and its request (a scope list among others) is not built at all.
  const extra =
    grant.family === 'oauth2' && ctx.tokens.claims !== undefined
      ? await hostClaims(ctx, {
          target: 'access_token',
          sub,
          subjectKind: grant.subject.kind,
          ...(grant.clientId === undefined ? {} : { clientId: grant.clientId }),
          scopes: grant.scope.split(' ').filter(Boolean),
          resources: grant.audience ?? [],
        })
      : undefined;
  const aud = audience.length === 1 ? audience[0]! : audience;
  const payloadText =
    extra === undefined && grant.act === undefined && Number.isFinite(exp)
      ? protocolPayloadJson(ctx.issuer, sub, aud, iat, exp, jti, grant)
      : JSON.stringify(accessTokenPayload(extra, ctx.issuer, sub, aud, iat, exp, jti, grant));
  // One read of the key set: with stored keys it changes at rotation, and header and signature
  // must come from the same key.
  let keys = freshKeySet(ctx.keys);
  if (keys instanceof Promise) keys = await keys;
  const signingInput = `${keys.encodedHeader}.${base64url(utf8(payloadText))}`;
  const token = `${signingInput}.${await keys.sign(signingInput)}`;
  const claims: Writable<AccessTokenClaims> = {
    family: grant.family,
    subject: grant.subject,
    sub,
    clientId: grant.clientId,
    scope: grant.scope,
    audience,
    jti,
    grantId: grant.grantId,
    iat,
    exp,
  };
  if (grant.act !== undefined) claims.act = grant.act;
  if (grant.jkt !== undefined) claims.jkt = grant.jkt;
  if (grant.authorizationDetails !== undefined) claims.authorizationDetails = grant.authorizationDetails;
  return { token, claims };
}

/**
 * The access token's claims (RFC 9068 §2.2): the host's first, then the protocol claims, which win.
 * Members in this order, the optional ones only when set.
 */
export function accessTokenPayload(
  extra: Readonly<Record<string, unknown>> | undefined,
  issuer: string,
  sub: string,
  aud: string | readonly string[],
  iat: number,
  exp: number,
  jti: string,
  grant: AccessTokenGrant,
): Record<string, unknown> {
  const protocol = { iss: issuer, sub, aud, iat, exp, jti, token_family: grant.family, scope: grant.scope };
  const payload: Record<string, unknown> = extra === undefined ? protocol : { ...extra, ...protocol };
  if (grant.clientId !== undefined) payload.client_id = grant.clientId;
  if (grant.grantId !== undefined) payload.gid = grant.grantId;
  if (grant.subject.kind === 'client') payload.sub_kind = 'client';
  if (grant.act !== undefined) payload.act = grant.act;
  if (grant.jkt !== undefined) payload.cnf = { jkt: grant.jkt };
  if (grant.authorizationDetails !== undefined) payload.authorization_details = grant.authorizationDetails;
  return payload;
}

/**
 * `JSON.stringify(accessTokenPayload(undefined, …))` (no host claims, no actor), written member by
 * member: half the cost of building the object and serialising it, which was the largest share
 * of signing a token on the event loop. The strings that recur from token to token go through
 * {@link jsonString}; `jti` is base64url (no character JSON escapes); `iat` and `exp` are finite
 * numbers, whose JSON is their `String`.
 */
export function protocolPayloadJson(
  issuer: string,
  sub: string,
  aud: string | readonly string[],
  iat: number,
  exp: number,
  jti: string,
  grant: AccessTokenGrant,
): string {
  let text = `{"iss":${jsonString(issuer)},"sub":${JSON.stringify(sub)},"aud":${typeof aud === 'string' ? jsonString(aud) : JSON.stringify(aud)},"iat":${iat},"exp":${exp},"jti":"${jti}","token_family":${jsonString(grant.family)},"scope":${jsonString(grant.scope)}`;
  if (grant.clientId !== undefined) text += `,"client_id":${jsonString(grant.clientId)}`;
  if (grant.grantId !== undefined) text += `,"gid":${JSON.stringify(grant.grantId)}`;
  if (grant.subject.kind === 'client') text += ',"sub_kind":"client"';
  if (grant.jkt !== undefined) text += `,"cnf":{"jkt":${JSON.stringify(grant.jkt)}}`;
  if (grant.authorizationDetails !== undefined)
    text += `,"authorization_details":${JSON.stringify(grant.authorizationDetails)}`;
  return `${text}}`;
}

/**
 * Checks an access token presented to an API (RFC 6750 §2.1, RFC 9068 §4): the one check of the
 * bearer and DPoP schemes and of the Auth API's introspection. Returns the token's claims, or why
 * it is refused ({@link AccessTokenRefusal}). In order:
 *
 * 1. A token verified before (the `verifiedTokens` cache, while its own `exp`/`nbf` still pass) skips
 *    2–3: answered synchronously when the store answers revocation synchronously, since this is
 *    every repeated API call and a turn of the microtask queue is a measurable share of it.
 * 2. Syntax: b64token (RFC 6750 §2.1), else `malformed`; checked only here, for a token not seen
 *    before (matching a ~700-character JWT costs about as much as the rest of a cached check).
 * 3. Signature, `typ`, issuer, lifetime and shape ({@link verifyAccessTokenSignature}); a valid
 *    token then enters the cache.
 * 4. Audience: `aud` must name `audience` (default: the instance's own API), else `audience`.
 * 5. Revocation of the token, its grant or its user ({@link isAccessTokenRevoked}), else `revoked`.
 *
 * A failing store throws or rejects.
 */
export function checkAccessToken(
  ctx: AccessTokenCheck,
  token: string,
  audience: string = ctx.tokens.audience,
): Awaitable<AccessTokenClaims | AccessTokenRefusal> {
  const cached = cachedAccessTokenClaims(ctx, token);
  if (cached !== undefined) return acceptedFor(ctx, cached, audience);
  if (!isB64Token(token)) return 'malformed';
  return verifySignature(ctx, token).then((verified) =>
    typeof verified === 'string' ? verified : acceptedFor(ctx, verified, audience),
  );
}

/**
 * Why {@link checkAccessToken} refused a token: a {@link TokenRejection}, or `malformed` when it is
 * not even of the b64token syntax (RFC 6750 §2.1), which RFC 6750 §3.1 answers as a malformed
 * request (`invalid_request`, 400) rather than an invalid token.
 */
export type AccessTokenRefusal = TokenRejection | 'malformed';

/** Steps 4–5 of {@link checkAccessToken}: verified claims, if for `audience` and not revoked. */
function acceptedFor(
  ctx: AccessTokenCheck,
  claims: AccessTokenClaims,
  audience: string,
): Awaitable<AccessTokenClaims | TokenRejection> {
  const granted = claims.audience;
  if (granted[0] !== audience && !granted.includes(audience)) return 'audience';
  const revoked = isAccessTokenRevoked(ctx, claims);
  if (typeof revoked === 'boolean') return revoked ? 'revoked' : claims;
  return revoked.then((isRevoked) => (isRevoked ? 'revoked' : claims));
}

/**
 * Verifies an access token's signature (by `kid`, with the instance algorithm only: never `none`),
 * `typ` (`at+jwt`, so ID tokens and other JWTs are refused, RFC 9068 §4), issuer, lifetime (with
 * the configured clock tolerance), and shape. Returns `null` for anything invalid. Checks that an
 * `aud` is present but not whose it is, and does **not** consult revocation: revocation and
 * introspection serve tokens of every resource and ask about revocation themselves; an API uses
 * {@link checkAccessToken}. Verified tokens are remembered in the instance's `VerifiedTokenCache`
 * until their `exp`, so a token seen again costs a map lookup instead of a signature check.
 */
export async function verifyAccessTokenSignature(
  ctx: TokenVerifying,
  token: string,
): Promise<AccessTokenClaims | null> {
  const verified = await verifyAccessTokenOrSayWhy(ctx, token);
  return typeof verified === 'string' ? null : verified;
}

/** {@link verifyAccessTokenSignature}, with why it refused the token (for introspection's debug log). */
export async function verifyAccessTokenOrSayWhy(
  ctx: TokenVerifying,
  token: string,
): Promise<AccessTokenClaims | TokenRejection> {
  return cachedAccessTokenClaims(ctx, token) ?? (await verifySignature(ctx, token));
}

/** Step 3 of {@link checkAccessToken}: a token not in the cache, verified, and cached if valid. */
async function verifySignature(
  ctx: TokenVerifying,
  token: string,
): Promise<AccessTokenClaims | TokenRejection> {
  if (token.length > 8192) return INVALID;
  const now = ctx.clock.now();
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    return INVALID;
  }
  const keys = ctx.keys;
  let verifier = kid === undefined ? undefined : verificationKeyOf(keys, kid);
  if (verifier instanceof Promise) verifier = await verifier; // an unknown kid only
  if (!verifier) return INVALID;
  try {
    const { payload } = await jwtVerify(token, verifier.key, {
      algorithms: [keys.algorithm],
      typ: 'at+jwt',
      issuer: ctx.issuer,
      clockTolerance: ctx.clock.toleranceSeconds,
      currentDate: new Date(now),
      requiredClaims: ['sub', 'aud', 'exp', 'iat', 'jti'],
    });
    const family = payload.token_family;
    const scope = payload.scope ?? '';
    const clientId = payload.client_id;
    const grantId = payload.gid;
    if (family !== 'oauth2' && family !== 'auth_api') return INVALID;
    if (typeof scope !== 'string' || typeof payload.sub !== 'string' || typeof payload.jti !== 'string')
      return INVALID;
    if (clientId !== undefined && typeof clientId !== 'string') return INVALID;
    if (grantId !== undefined && typeof grantId !== 'string') return INVALID;
    if (family === 'oauth2' && clientId === undefined) return INVALID;
    const audience = typeof payload.aud === 'string' ? [payload.aud] : payload.aud;
    if (!Array.isArray(audience) || audience.length === 0 || !audience.every((a) => typeof a === 'string'))
      return INVALID;
    // A client subject's `sub` is its own client id (RFC 9068 §2.2); anything else is forged or broken.
    // RFC 9449 §6.1: a bound token's confirmation; a malformed one is no token of ours.
    const cnf = payload.cnf as { jkt?: unknown } | undefined;
    if (cnf !== undefined && (typeof cnf !== 'object' || cnf === null || typeof cnf.jkt !== 'string'))
      return INVALID;
    const subKind = payload.sub_kind;
    if (subKind !== undefined && (subKind !== 'client' || clientId !== payload.sub)) return INVALID;
    const act = parseAct(payload.act);
    if (act === null) return INVALID;
    // RFC 9396 §9.1: the granted details, an array of details; anything else is no token of ours.
    const authorizationDetails = authorizationDetailsClaim(payload.authorization_details);
    if (authorizationDetails === null) return INVALID;
    const claims: AccessTokenClaims = {
      family,
      subject: subKind === 'client' ? clientSubject(payload.sub) : userSubject(payload.sub),
      sub: payload.sub,
      clientId,
      scope,
      audience: Object.freeze(audience),
      jti: payload.jti,
      grantId,
      ...(act === undefined ? {} : { act }),
      ...(cnf === undefined ? {} : { jkt: cnf.jkt as string }),
      ...(authorizationDetails === undefined ? {} : { authorizationDetails }),
      iat: payload.iat!,
      exp: payload.exp!,
    };
    ctx.tokens.verified.set(token, claims, payload.nbf);
    return claims;
  } catch (error) {
    return rejectionOf(error);
  }
}

const INVALID: TokenRejection = 'invalid';

/**
 * What jose's refusal says, for the refusals it makes only after the signature verified (it
 * checks the signature before any claim): expiry and issuer. Everything else is `invalid`.
 */
function rejectionOf(error: unknown): TokenRejection {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ERR_JWT_EXPIRED') return 'expired';
  if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED' && (error as { claim?: unknown }).claim === 'iss') {
    return 'issuer';
  }
  return INVALID;
}

/**
 * The claims of a token verified before, while its own lifetime still passes (see the cache);
 * `undefined` for a token never verified, or no longer valid. Revocation is not consulted: see
 * {@link isAccessTokenRevoked}.
 */
export function cachedAccessTokenClaims(ctx: TokenVerifying, token: string): AccessTokenClaims | undefined {
  // With stored keys (`keyRotation`), reading the key set is what starts its periodic re-read, in
  // the background: a process that only meets tokens it verified before must still learn of a
  // revoked key, whose tokens the re-read purges from this cache. A plain property otherwise.
  void ctx.keys;
  return ctx.tokens.verified.get(token, toEpochSeconds(ctx.clock.now()), ctx.clock.toleranceSeconds);
}

/**
 * Whether an access token or its grant was revoked, or its user was (`revokeUser`) at or after its
 * issue time (step 5 of {@link checkAccessToken}): asked of storage on every use, in one call, never cached, so a revocation
 * holds at once (on every instance sharing the store). The user is not looked up here (the hot
 * path): a deleted user's token stops here only once the host called `revokeUser`.
 *
 * `iat` has whole seconds, so it is compared as the start of its second: a token issued in the
 * same second as the user's mark counts as issued before it and is revoked too, even if it was
 * issued a few milliseconds after (never the other way round).
 */
export function isAccessTokenRevoked(ctx: RevocationCheck, claims: AccessTokenClaims): Awaitable<boolean> {
  const now = ctx.clock.now();
  // A user's mark covers users only: a client acting for itself is never one of them.
  const userId = claims.subject.kind === 'user' ? claims.sub : undefined;
  const issuedAt = fromEpochSeconds(claims.iat);
  // The pushed-revocations mirror answers while it is live (caught up, within its lag bound);
  // `undefined` means ask the engine.
  const mirrored = ctx.tokens.revocationMirror?.check(claims.jti, claims.grantId, now, userId, issuedAt);
  if (mirrored !== undefined) return mirrored;
  const revoked = ctx.storage.grants.isRevoked(claims.jti, claims.grantId, now, userId, issuedAt);
  if (typeof revoked === 'boolean') return revoked;
  // Anything else is taken as a promise (or a thenable of another realm) of the answer.
  return Promise.resolve(revoked).then(Boolean);
}
