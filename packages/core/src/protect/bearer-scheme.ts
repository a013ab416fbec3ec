import type { Awaitable } from '../awaitable.js';
import type { Context } from '../context.js';
import type { DpopChecks } from '../dpop/proof.js';
import { ProtocolError } from '../errors.js';
import { isFormContentType, readForm } from '../http/form.js';
import { type AccessTokenClaims, type AccessTokenRefusal, checkAccessToken } from '../tokens/access-token.js';
import {
  bearerChallenge,
  insufficientScope,
  invalidBearerRequest,
  invalidToken,
  type ResourceChallenge,
} from './challenge.js';
import { boundTokenAsBearer } from './dpop-challenge.js';
import type { Caller } from './types.js';

/**
 * The protected resource an operation declared (`AuthenticateOptions.resource` and
 * `resourceMetadata`): the audience its tokens must name, and what its challenges say.
 */
export interface BearerResource {
  /** The `aud` value a token must contain: the resource identifier (default: the instance's API). */
  readonly audience?: string;
  /** `resource_metadata` and the required scopes, for the Bearer challenges. */
  readonly challenge: ResourceChallenge;
}

/**
 * The caller of a request that presented `Authorization: Bearer <token>` (RFC 6750 §2.1), given
 * the header's credentials as sent (see `bearerCredentials`): the token checked by
 * `checkAccessToken` (syntax, signature, `typ: at+jwt`, issuer, lifetime, audience, revocation)
 * and against `requiredScopes` (all of them). Both token families (OAuth 2.0 and Auth API) are
 * accepted. Throws (or rejects with) the RFC 6750 §3.1 answers: this function only maps the
 * check's refusal to its challenge.
 *
 * A token verified before, on a request without a form body, is answered synchronously when the
 * grant store answers revocation synchronously: no promise on the path of a repeated API call.
 */
export function bearerCaller(
  ctx: Pick<Context, 'issuer' | 'clock' | 'storage' | 'keys' | 'tokens' | 'limits'>,
  dpop: DpopChecks,
  request: Request,
  credentials: string,
  requiredScopes: readonly string[],
  resource?: BearerResource,
): Awaitable<Caller> {
  const challenge = resource?.challenge;
  // The resource's identifier when the operation declares one (RFC 8707), else the instance's API.
  const audience = resource?.audience ?? ctx.tokens.audience;
  // Only a form body can carry a second copy: the common case (no form) waits for nothing.
  if (mayCarryBodyToken(request)) {
    return refuseSecondTransmission(ctx, request, challenge)
      .then(() => checkAccessToken(ctx, credentials, audience))
      .then((checked) => permittedCaller(ctx, dpop, checked, requiredScopes, challenge));
  }
  const checked = checkAccessToken(ctx, credentials, audience);
  // Not `andThen`: its callback would be a closure made on every request, the cached ones included.
  return checked instanceof Promise
    ? checked.then((known) => permittedCaller(ctx, dpop, known, requiredScopes, challenge))
    : permittedCaller(ctx, dpop, checked, requiredScopes, challenge);
}

/**
 * The caller of checked claims holding every required scope; throws the RFC 6750 §3.1 answer for
 * a refusal: 400 `invalid_request` for a malformed token, 401 `invalid_token` (its description
 * says why, as far as `TokenRejection` may), 403 `insufficient_scope`.
 */
function permittedCaller(
  ctx: Pick<Context, 'issuer'>,
  dpop: DpopChecks,
  checked: AccessTokenClaims | AccessTokenRefusal,
  requiredScopes: readonly string[],
  challenge: ResourceChallenge | undefined,
): Caller {
  if (checked === 'malformed')
    throw invalidBearerRequest(ctx, 'The Bearer authorization header is malformed.', challenge);
  if (typeof checked === 'string') throw invalidToken(ctx, checked, challenge);
  // RFC 9449 §7.2: a DPoP-bound token is no bearer token.
  if (checked.jkt !== undefined)
    throw boundTokenAsBearer(dpop, bearerChallenge(ctx, {}, challenge), challenge);
  const caller = callerOf(checked);
  for (const needed of requiredScopes) {
    if (!caller.scope.includes(needed)) throw insufficientScope(ctx, requiredScopes, challenge);
  }
  return caller;
}

/**
 * Callers by the claims they were made from. The verified-token cache hands out the same claims
 * object for every use of a token, so a token used again gets the same frozen caller instead of a
 * new object and scope array per request.
 */
const callers = new WeakMap<AccessTokenClaims, Caller>();

export function callerOf(claims: AccessTokenClaims): Caller {
  let caller = callers.get(claims);
  if (caller === undefined) {
    caller = Object.freeze({
      sub: claims.sub,
      subject: claims.subject,
      scheme: 'bearer',
      clientId: claims.clientId,
      scope: Object.freeze(claims.scope === '' ? [] : claims.scope.split(' ')),
      family: claims.family,
      tokenId: claims.jti,
      ...(claims.act === undefined ? {} : { act: claims.act }),
      expiresAt: claims.exp,
      ...(claims.jkt === undefined ? {} : { dpopJkt: claims.jkt }),
      ...(claims.authorizationDetails === undefined
        ? {}
        : { authorizationDetails: claims.authorizationDetails }),
    });
    callers.set(claims, caller);
  }
  return caller;
}

/** Whether the request has an unread form body, the only kind that can carry `access_token`. */
export function mayCarryBodyToken(request: Request): boolean {
  // GET and HEAD never carry one (RFC 6750 §2.2 rules out GET; a Fetch `Request` of either has no
  // body), so the common API read looks up no second header: on @hono/node-server each lookup is
  // a header-name check and a search of Node's headers. Then the header, before the body: on lazily
  // built requests (e.g. @hono/node-server's), touching `body` materialises a full Request, which
  // cost a fifth of a bearer-protected GET under Hono.
  const method = request.method;
  if (method === 'GET' || method === 'HEAD') return false;
  return isFormContentType(request) && request.body !== null && !request.bodyUsed;
}

/**
 * RFC 6750 §2: a client must not send the token by more than one method. Gatehouse reads only the
 * header, but a token also in a form body (`access_token`, §2.2) is refused with `invalid_request`
 * rather than silently ignored. Only form bodies can carry it, so no other body is ever read; the
 * form is read from a clone, leaving the body to the operation.
 */
export async function refuseSecondTransmission(
  ctx: Pick<Context, 'issuer' | 'limits'>,
  request: Request,
  challenge: ResourceChallenge | undefined,
): Promise<void> {
  let hasBodyToken: boolean;
  try {
    hasBodyToken = (await readForm(request.clone(), ctx.limits.maxBodyBytes)).has('access_token');
  } catch (error) {
    if (error instanceof ProtocolError) throw invalidBearerRequest(ctx, error.description, challenge);
    throw error;
  }
  if (hasBodyToken) {
    throw invalidBearerRequest(
      ctx,
      'The access token must be sent in the Authorization header only, not also in the body.',
      challenge,
    );
  }
}
