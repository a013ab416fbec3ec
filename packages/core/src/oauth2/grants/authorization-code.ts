import type { TokenIssuing } from '../../context.js';
import type { DpopProof } from '../../dpop/proof.js';
import { invalidGrant, invalidRequest, oauthError } from '../../errors.js';
import type { Params } from '../../http/form.js';
import type { Answer } from '../../http/reply.js';
import { grantIdToken } from '../../oidc/grant-id-token.js';
import { secretHash } from '../../tokens/secrets.js';
import { userSubject } from '../../tokens/subject.js';
import type { AuthenticatedClient } from '../client-auth/authenticate-client.js';
import { isValidCodeVerifier, verifyS256 } from '../pkce.js';
import { requestedResources, tokenAudience } from '../resource-indicators.js';
import { boundJkt, withBinding } from '../token-request-proof.js';
import { tokenResponse } from '../token-response.js';
import {
  type Grant,
  grantAccessToken,
  grantLifetimeMs,
  issuesRefreshToken,
  newRefreshToken,
  revokeGrant,
  tokenIssued,
} from './grant-tokens.js';

/**
 * `grant_type=authorization_code` (RFC 6749 §4.1.3, RFC 7636 §4.5). Every check happens before the
 * code is consumed, so that a request with a wrong verifier or redirect_uri cannot burn a code.
 * The consumption and the refresh token's storage are one atomic store call.
 */
export async function authorizationCodeGrant(
  ctx: TokenIssuing,
  params: Params,
  { client }: AuthenticatedClient,
  dpop?: DpopProof,
): Promise<Answer> {
  const code = params.require('code');
  const redirectUri = params.get('redirect_uri');
  const verifier = params.get('code_verifier');
  if (verifier !== undefined && !isValidCodeVerifier(verifier)) {
    throw invalidRequest('The code_verifier must be 43 to 128 unreserved characters (RFC 7636 §4.1).');
  }
  const resources = requestedResources(params);
  const now = ctx.clock.now();
  const codeHash = await secretHash(code);
  const record = await ctx.storage.grants.findCode(codeHash, now);
  // Wrong client, redirect_uri or verifier: the same answer as an unknown code, and nothing revoked.
  if (!record || record.clientId !== client.id)
    throw invalidGrant('The authorization code is invalid or expired.');
  if (!redirectUriMatches(redirectUri, record.redirectUri, client.redirectUris)) {
    throw invalidGrant('The redirect_uri does not match the one of the authorization request.');
  }
  if (record.codeChallenge === undefined) {
    // RFC 9700 §2.1.1: a verifier without a challenge is a PKCE downgrade attempt.
    if (verifier !== undefined)
      throw invalidGrant('A code_verifier was sent but the authorization request had no code_challenge.');
  } else {
    if (verifier === undefined) throw invalidGrant('The code_verifier is missing.');
    if (!(await verifyS256(verifier, record.codeChallenge)))
      throw invalidGrant('The code_verifier does not match the code_challenge.');
  }
  // RFC 9449 §10: a code requested with dpop_jkt is redeemed with a proof of that key only.
  const codeJkt = boundJkt(record.ext);
  if (codeJkt !== undefined && dpop?.jkt !== codeJkt)
    throw invalidGrant('The authorization code is bound to another DPoP key (dpop_jkt).');
  if (record.consumedAt !== undefined) return replayed(ctx, record.grantId, client.id);

  const grant: Grant = {
    grantId: record.grantId,
    clientId: client.id,
    subject: userSubject(record.userId),
    scope: record.scope,
    audience: record.audience,
    authTime: record.authTime,
    sessionId: record.sessionId,
    acr: record.acr,
    amr: record.amr,
    // RFC 9449 §5: a public client's refresh tokens are bound to the key of its proof; a
    // confidential client's are bound to its authentication already.
    ext: withBinding(record.ext, client.type === 'public' ? dpop?.jkt : undefined),
    // The grant starts now: its refresh tokens carry this through every rotation (listGrants).
    grantedAt: now,
  };
  // RFC 8707 §2.2: `resource` here picks among the authorized resources, never adds one.
  const access = await grantAccessToken(
    ctx,
    grant,
    grant.scope,
    tokenAudience(ctx, record.audience, resources),
    dpop?.jkt,
  );
  const idToken = await grantIdToken(
    ctx,
    client,
    record.nonce === undefined ? grant : { ...grant, nonce: record.nonce },
    access.token,
  );
  const refresh = issuesRefreshToken(client, grant.scope)
    ? await newRefreshToken(ctx, grant, now)
    : undefined;
  // The consumed code outlives its 60 s so that a late replay still revokes the grant (§4.1.2).
  const result = await ctx.storage.grants.redeemCode(
    codeHash,
    refresh?.record ?? null,
    now,
    now + grantLifetimeMs(ctx),
  );
  if (result.status === 'replayed') return replayed(ctx, record.grantId, client.id);
  if (result.status === 'invalid') throw invalidGrant('The authorization code is invalid or expired.');
  ctx.emit(tokenIssued(client.id, grant.subject, 'authorization_code'));
  return tokenResponse({
    accessToken: access.token,
    tokenType: dpop ? 'DPoP' : 'Bearer',
    expiresIn: ctx.tokens.accessTokenTtl,
    refreshToken: refresh?.token,
    scope: record.scope,
    idToken,
  });
}

/**
 * RFC 6749 §4.1.3: `redirect_uri` must be identical to the authorization request's when that one
 * included it. When it did not (stored as `''`: the client's only registered URI was used), the
 * parameter may be omitted or name that URI.
 */
function redirectUriMatches(
  sent: string | undefined,
  stored: string,
  registered: readonly string[],
): boolean {
  if (stored !== '') return sent === stored;
  return sent === undefined || (registered.length === 1 && sent === registered[0]);
}

/** RFC 6749 §4.1.2: a code used twice revokes every token issued from it. */
async function replayed(ctx: TokenIssuing, grantId: string, clientId: string): Promise<never> {
  await revokeGrant(ctx, grantId);
  ctx.emit({ type: 'code.replayed', clientId, grantId });
  throw oauthError('invalid_grant', 'The authorization code has already been used.');
}
