import type { TokenIssuing } from '../../context.js';
import { sha256Base64url } from '../../crypto/sha256.js';
import type { DpopProof } from '../../dpop/proof.js';
import { invalidGrant, invalidRequest, oauthError, type ProtocolError } from '../../errors.js';
import type { Params } from '../../http/form.js';
import type { Answer } from '../../http/reply.js';
import { grantIdToken } from '../../oidc/grant-id-token.js';
import { exchangeCodeIn } from '../../storage/grant-exchange.js';
import { userSubject } from '../../storage/subject.js';
import type { GrantRefusal } from '../../storage/types.js';
import { secretHash } from '../../tokens/secrets.js';
import {
  type AuthorizationDetailsService,
  grantedDetails,
  tokenDetails,
} from '../authorization-details/feature.js';
import type { AuthenticatedClient } from '../client-auth/authenticate-client.js';
import { isValidCodeVerifier } from '../pkce.js';
import { requestedResources, tokenAudience } from '../resource-indicators.js';
import { tokenResponse } from '../token-response.js';
import {
  clientMayUse,
  type Grant,
  grantAccessToken,
  grantLifetimeMs,
  newRefreshSecret,
  revokeGrant,
  tokenIssued,
} from './grant-tokens.js';

/**
 * `grant_type=authorization_code` (RFC 6749 §4.1.3, RFC 7636 §4.5). The checks, the consumption and
 * the refresh token's storage are one atomic store call (`exchangeCode`: one round trip on the
 * engines), which answers with the code, so access and ID tokens are signed once it is spent.
 */
export async function authorizationCodeGrant(
  ctx: TokenIssuing,
  params: Params,
  { client }: AuthenticatedClient,
  dpop?: DpopProof,
  details?: AuthorizationDetailsService,
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
  // RFC 8707 §2.2: `resource` here picks among the authorized resources, never adds one. A request
  // naming one reads the code first, so that a refused resource leaves the code unspent.
  // RFC 9396 §6.1 likewise: `authorization_details` here asks for some of the granted ones.
  const narrowsDetails = details !== undefined && params.get('authorization_details') !== undefined;
  if (resources.length > 0 || narrowsDetails) {
    const known = await ctx.storage.grants.findCode(codeHash, now);
    if (known?.clientId === client.id) {
      tokenAudience(ctx, known.audience, resources);
      tokenDetails(details, params, client, grantedDetails(known.ext));
    }
  }
  const refresh = clientMayUse(client, 'refresh_token')
    ? // RFC 9449 §5: a public client's refresh tokens are bound to the key of its proof; a
      // confidential client's are bound to its authentication already.
      await newRefreshSecret(ctx, now, client.type === 'public' ? dpop?.jkt : undefined)
    : undefined;
  // Every check (client, redirect_uri, PKCE, DPoP key) is made in the store's atomic step, before
  // the code is consumed, so that a request with a wrong verifier or redirect_uri cannot burn it.
  // The consumed code outlives its 60 s so that a late replay still revokes the grant (§4.1.2).
  const result = await exchangeCodeIn(
    ctx.storage.grants,
    codeHash,
    {
      clientId: client.id,
      redirectUri,
      redirectUriFitsDefault:
        redirectUri === undefined ||
        (client.redirectUris.length === 1 && redirectUri === client.redirectUris[0]),
      verifierChallenge: verifier === undefined ? undefined : await sha256Base64url(verifier),
      dpopJkt: dpop?.jkt,
      refreshToken: refresh?.mint,
      keepUntil: now + grantLifetimeMs(ctx),
    },
    now,
  );
  if (result.status === 'replayed') return replayed(ctx, result.code.grantId, client.id);
  if (result.status !== 'redeemed')
    throw codeRefused(result.status === 'refused' ? result.reason : undefined);
  const record = result.code;

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
  };
  const authorizationDetails = tokenDetails(details, params, client, grantedDetails(record.ext));
  const access = await grantAccessToken(
    ctx,
    grant,
    grant.scope,
    tokenAudience(ctx, record.audience, resources),
    dpop?.jkt,
    authorizationDetails,
  );
  const idToken = await grantIdToken(
    ctx,
    client,
    record.nonce === undefined ? grant : { ...grant, nonce: record.nonce },
    access.token,
  );
  ctx.emit(tokenIssued(client.id, grant.subject, 'authorization_code'));
  return tokenResponse({
    accessToken: access.token,
    tokenType: dpop ? 'DPoP' : 'Bearer',
    expiresIn: ctx.tokens.accessTokenTtl,
    refreshToken: result.refreshTokenStored ? refresh?.token : undefined,
    scope: record.scope,
    idToken,
    authorizationDetails,
  });
}

/**
 * The answer to a code the store refused or did not find: `invalid_grant` (RFC 6749 §5.2) whatever
 * the reason, a wrong client's like an unknown code's, and nothing is revoked.
 */
function codeRefused(reason: GrantRefusal | undefined): ProtocolError {
  switch (reason) {
    case 'redirect_uri':
      // RFC 6749 §4.1.3.
      return invalidGrant('The redirect_uri does not match the one of the authorization request.');
    case 'code_verifier_unexpected':
      // RFC 9700 §2.1.1: a verifier without a challenge is a PKCE downgrade attempt.
      return invalidGrant('A code_verifier was sent but the authorization request had no code_challenge.');
    case 'code_verifier_missing':
      return invalidGrant('The code_verifier is missing.');
    case 'code_verifier_mismatch':
      return invalidGrant('The code_verifier does not match the code_challenge.');
    case 'dpop_key':
      // RFC 9449 §10: a code requested with dpop_jkt is redeemed with a proof of that key only.
      return invalidGrant('The authorization code is bound to another DPoP key (dpop_jkt).');
    default:
      return invalidGrant('The authorization code is invalid or expired.');
  }
}

/** RFC 6749 §4.1.2: a code used twice revokes every token issued from it. */
async function replayed(ctx: TokenIssuing, grantId: string, clientId: string): Promise<never> {
  await revokeGrant(ctx, grantId);
  ctx.emit({ type: 'code.replayed', clientId, grantId });
  throw oauthError('invalid_grant', 'The authorization code has already been used.');
}
