import type { Context } from '../../context.js';
import { base64url } from '../../crypto/encoding.js';
import { invalidRequest } from '../../errors.js';
import type { Answer } from '../../http/reply.js';
import type { RecordExtensions } from '../../storage/types.js';
import { addSeconds } from '../../time.js';
import { hashSecret, randomSecret } from '../../tokens/secrets.js';
import { withGrantedDetails } from '../authorization-details/feature.js';
import { endFlight } from '../par/pushed-requests.js';
import type { Authentication } from './authentication.js';
import type { AuthorizationRequest } from './request.js';
import { authorizationRedirect } from './response.js';

/**
 * Completes an authorization request for the signed-in user (`authentication`): stores a new single-use code (by hash, with a
 * new grant id, lifetime `authorizationCodeTtl`) and redirects to the client with it.
 *
 * The stored `redirectUri` is the one the request sent, or `''` when it sent none (the client's
 * only registered URI was used): the token endpoint then accepts no `redirect_uri` or that URI
 * (RFC 6749 §4.1.3 requires the parameter only when the authorization request included it).
 */
export async function issueAuthorizationCode(
  ctx: Pick<Context, 'issuer' | 'clock' | 'randomBytes' | 'storage' | 'tokens'>,
  request: AuthorizationRequest,
  authentication: Authentication,
): Promise<Answer> {
  // One pushed request yields one code (RFC 9126 §4: its request_uri is single use).
  if (request.pushed && !(await endFlight(ctx, request.pushed)))
    throw invalidRequest('This pushed authorization request was already completed.');
  const { userId, authTime, sessionId, acr, amr } = authentication;
  const code = randomSecret(ctx.randomBytes);
  const now = ctx.clock.now();
  await ctx.storage.grants.saveCode({
    codeHash: await hashSecret(code),
    clientId: request.client.id,
    userId,
    grantId: base64url(ctx.randomBytes(16)),
    redirectUri: request.redirectUriSent ? request.redirectUri : '',
    scope: request.scope,
    // RFC 8707: the resources the user authorized, the `aud` of every token of the grant.
    ...(request.resources === undefined ? {} : { audience: request.resources }),
    ...(request.codeChallenge === undefined ? {} : { codeChallenge: request.codeChallenge }),
    // RFC 9449 §10: only a proof of this key redeems the code. RFC 9396 §7: the details the user
    // granted, carried by the code to every token of the grant.
    ...codeExtensions(request),
    // When and how the user authenticated, and which session: OIDC carries them into its tokens,
    // with the request's nonce (echoed in the ID token, Core §3.1.2.1).
    authTime,
    ...(request.oidc.nonce === undefined ? {} : { nonce: request.oidc.nonce }),
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(acr === undefined ? {} : { acr }),
    ...(amr === undefined ? {} : { amr }),
    expiresAt: addSeconds(now, ctx.tokens.authorizationCodeTtl),
  });
  return authorizationRedirect(ctx, request, { code });
}

/** The code's `ext`: its DPoP key (`dpopJkt`) and its authorization details, when any. */
function codeExtensions(request: AuthorizationRequest): { ext?: RecordExtensions } {
  const ext = withGrantedDetails(
    request.dpopJkt === undefined ? undefined : { dpopJkt: request.dpopJkt },
    request.authorizationDetails,
  );
  return ext === undefined ? {} : { ext };
}
