import type { Context } from '../context.js';
import { currentNonce } from '../dpop/nonce.js';
import type { DpopChecks } from '../dpop/proof.js';
import { checkDpopProof, dpopHeader, httpOrigin, isRefusal, requestHtus } from '../dpop/proof.js';
import { isB64Token } from '../http/bearer.js';
import { checkAccessToken } from '../tokens/access-token.js';
import {
  type BearerResource,
  callerOf,
  mayCarryBodyToken,
  refuseSecondTransmission,
} from './bearer-scheme.js';
import {
  dpopInsufficientScope,
  dpopInvalidRequest,
  dpopInvalidToken,
  dpopProofRefused,
} from './dpop-challenge.js';
import type { Caller } from './types.js';

/**
 * The caller of a request that presented `Authorization: DPoP <token>` with a `DPoP` proof (RFC
 * 9449 §7): the token verified as a bearer token is (signature, issuer, audience, lifetime,
 * revocation) and must be DPoP-bound (`cnf.jkt`); the proof must pass every check of §4.3 for this
 * request (method, URI at a configured origin (see {@link routeOrigins}), `ath` the token's hash, a fresh `jti`, the server nonce when
 * `dpop.requireNonce` is `'all'`) and be signed by the token's key. Refusals are 401 with a `DPoP`
 * challenge (`invalid_token`, `invalid_dpop_proof`, `use_dpop_nonce` with `DPoP-Nonce`), 400 for a
 * malformed header, 403 `insufficient_scope`.
 *
 * The token is checked before the proof, so that no proof of a token that is not ours costs a
 * replay-store entry.
 */
export async function dpopCaller(
  ctx: Pick<Context, 'issuer' | 'site' | 'clock' | 'storage' | 'keys' | 'tokens' | 'limits'>,
  dpop: DpopChecks,
  request: Request,
  token: string,
  requiredScopes: readonly string[],
  resource?: BearerResource,
): Promise<Caller> {
  const challenge = resource?.challenge;
  if (!isB64Token(token))
    throw dpopInvalidRequest(dpop, 'The DPoP authorization header is malformed.', challenge);
  const proof = dpopHeader(request);
  if (proof === undefined)
    throw dpopProofRefused(
      dpop,
      'invalid_dpop_proof',
      'A DPoP token must come with a DPoP proof.',
      challenge,
    );
  if (proof === null)
    throw dpopProofRefused(dpop, 'invalid_dpop_proof', 'Send exactly one DPoP header.', challenge);
  if (mayCarryBodyToken(request)) await refuseSecondTransmission(ctx, request, challenge);
  const claims = await checkAccessToken(ctx, token, resource?.audience ?? ctx.tokens.audience);
  // Unreachable ('malformed'): the token's syntax was checked above, before the proof's.
  if (claims === 'malformed')
    throw dpopInvalidRequest(dpop, 'The DPoP authorization header is malformed.', challenge);
  if (typeof claims === 'string') throw dpopInvalidToken(dpop, claims, challenge);
  if (claims.jkt === undefined)
    throw dpopInvalidToken(
      dpop,
      'The access token is not DPoP-bound: present it as a Bearer token.',
      challenge,
    );
  const outcome = await checkDpopProof(dpop, request, proof, {
    htu: requestHtus(routeOrigins(ctx, resource?.audience), request),
    accessToken: token,
    requireNonce: dpop.settings.requireNonce === 'all',
  });
  if (isRefusal(outcome)) {
    const nonce = outcome.error === 'use_dpop_nonce' ? await currentNonce(dpop) : undefined;
    throw dpopProofRefused(dpop, outcome.error, outcome.description, challenge, nonce);
  }
  if (outcome.jkt !== claims.jkt)
    throw dpopProofRefused(
      dpop,
      'invalid_dpop_proof',
      'The DPoP proof is not signed by the key the token is bound to.',
      challenge,
    );
  const caller = callerOf(claims);
  for (const needed of requiredScopes) {
    if (!caller.scope.includes(needed)) throw dpopInsufficientScope(dpop, requiredScopes, challenge);
  }
  return caller;
}

/**
 * The public origins a route of the instance is reached at, for the proof's `htu` (RFC 9449 §4.3
 * item 9): the issuer's, and the origin of the route's declared resource (RFC 8707) when it is an
 * http(s) URL on another origin (an API the same process serves under another host name). Both
 * are configuration, never read from the request (see `requestHtus`).
 */
function routeOrigins(ctx: Pick<Context, 'site'>, audience: string | undefined): readonly string[] {
  if (audience === undefined) return [ctx.site.origin];
  const origin = httpOrigin(audience);
  return origin === undefined || origin === ctx.site.origin ? [ctx.site.origin] : [ctx.site.origin, origin];
}
