import type { TokenIssuing } from '../../context.js';
import type { DpopProof } from '../../dpop/proof.js';
import { invalidGrant, invalidScope, type ProtocolError } from '../../errors.js';
import type { Params } from '../../http/form.js';
import type { Answer } from '../../http/reply.js';
import { grantIdToken } from '../../oidc/grant-id-token.js';
import { exchangeRefreshTokenIn, refreshTokenRefusal } from '../../storage/grant-exchange.js';
import type { GrantRefusal, RefreshTokenRecord } from '../../storage/types.js';
import { secretHash } from '../../tokens/secrets.js';
import {
  type AuthorizationDetailsService,
  grantedDetails,
  tokenDetails,
} from '../authorization-details/feature.js';
import type { AuthenticatedClient } from '../client-auth/authenticate-client.js';
import { requestedResources, tokenAudience } from '../resource-indicators.js';
import { isScopeSubset, parseScope } from '../scope.js';
import { tokenResponse } from '../token-response.js';
import {
  clientMayUse,
  grantAccessToken,
  newRefreshSecret,
  revokeGrant,
  tokenIssued,
} from './grant-tokens.js';

/**
 * `grant_type=refresh_token` (RFC 6749 §6). The token is bound to its client; the scope may narrow,
 * never widen. With rotation (the default), the presented token is exchanged atomically for a new
 * one, and presenting an already rotated token revokes the whole grant (RFC 9700 §4.14.2). The
 * access and ID tokens are signed once the store answered with the grant.
 */
export async function refreshTokenGrant(
  ctx: TokenIssuing,
  params: Params,
  { client }: AuthenticatedClient,
  dpop?: DpopProof,
  details?: AuthorizationDetailsService,
): Promise<Answer> {
  const presented = params.require('refresh_token');
  const requestedScope = params.get('scope');
  const resources = requestedResources(params);
  if (!clientMayUse(client, 'refresh_token')) {
    throw invalidGrant('The client may not use refresh tokens.');
  }
  const now = ctx.clock.now();
  const tokenHash = await secretHash(presented);
  const expected = { clientId: client.id, dpopJkt: dpop?.jkt };
  let record: RefreshTokenRecord;
  let next: string | undefined;
  if (ctx.tokens.rotateRefreshTokens) {
    // A refresh that narrows the grant (scope, resource) reads the token first, so that a refused
    // narrowing leaves it unspent.
    // RFC 9396 §6.1: so does one asking for some of the grant's authorization details.
    const narrowsDetails = details !== undefined && params.get('authorization_details') !== undefined;
    if (requestedScope !== undefined || resources.length > 0 || narrowsDetails) {
      const known = await ctx.storage.grants.findRefreshToken(tokenHash, now);
      if (known && refreshTokenRefusal(known, expected) === undefined && known.rotatedAt === undefined) {
        narrowedScope(known.scope, requestedScope);
        tokenAudience(ctx, known.audience, resources);
        tokenDetails(details, params, client, grantedDetails(known.ext));
      }
    }
    // The checks (client, DPoP key), the rotation and the successor's storage are one atomic store
    // call (`exchangeRefreshToken`: one round trip on the engines). A public client's refresh
    // token, once used with a proof, stays bound to that key (RFC 9449 §5).
    const successor = await newRefreshSecret(ctx, now, client.type === 'public' ? dpop?.jkt : undefined);
    const result = await exchangeRefreshTokenIn(
      ctx.storage.grants,
      tokenHash,
      { ...expected, next: successor.mint },
      now,
    );
    if (result.status === 'reused') return reused(ctx, result.previous.grantId, client.id);
    if (result.status !== 'rotated')
      throw refreshRefused(result.status === 'refused' ? result.reason : undefined);
    record = result.previous;
    next = successor.token;
  } else {
    const found = await ctx.storage.grants.findRefreshToken(tokenHash, now);
    if (!found) throw refreshRefused(undefined);
    const reason = refreshTokenRefusal(found, expected);
    if (reason !== undefined) throw refreshRefused(reason);
    if (found.rotatedAt !== undefined) return reused(ctx, found.grantId, client.id);
    record = found;
  }
  // A record without a subject comes from an engine still on storage v1: refused, never a 500.
  if (record.subject === undefined) throw refreshRefused(undefined);
  // A deleted user's grants end with the user (sessions do the same through `sessionUser`). A
  // client subject is the authenticated client itself, found a moment ago.
  if (record.subject.kind === 'user' && !(await ctx.users.findUser(record.subject.userId))) {
    await revokeGrant(ctx, record.grantId);
    throw refreshRefused(undefined);
  }
  const scope = narrowedScope(record.scope, requestedScope);
  // RFC 9396 §6.1: the access token gets the details asked for (or all the grant's); the new
  // refresh token keeps them all, as it keeps the whole scope.
  const authorizationDetails = tokenDetails(details, params, client, grantedDetails(record.ext));

  // RFC 8707 §2.2: a refresh may narrow the resources too; the new refresh token keeps them all.
  const access = await grantAccessToken(
    ctx,
    record,
    scope,
    tokenAudience(ctx, record.audience, resources),
    dpop?.jkt,
    authorizationDetails,
  );
  const tokenType = dpop ? 'DPoP' : 'Bearer';
  // Core §12.2: the same sub and the original auth_time; no nonce.
  const idToken = await grantIdToken(
    ctx,
    client,
    scope === record.scope ? record : { ...record, scope },
    access.token,
  );
  ctx.emit(tokenIssued(client.id, record.subject, 'refresh_token'));
  return tokenResponse({
    accessToken: access.token,
    tokenType,
    expiresIn: ctx.tokens.accessTokenTtl,
    refreshToken: next,
    scope,
    idToken,
    authorizationDetails,
  });
}

/** The scope of a refresh: the grant's own without a `scope` parameter (RFC 6749 §6), else a subset of it. */
function narrowedScope(granted: string, requested: string | undefined): string {
  if (requested === undefined) return granted;
  const scope = parseScope(requested).join(' ');
  if (!isScopeSubset(scope, granted))
    throw invalidScope('A refresh may narrow the scope of the grant, never widen it.');
  return scope;
}

/** The answer to a refresh token the store refused or did not find (RFC 6749 §5.2); nothing is revoked. */
function refreshRefused(reason: GrantRefusal | undefined): ProtocolError {
  // RFC 9449 §5: a bound refresh token (a public client's) is used with a proof of its key only.
  if (reason === 'dpop_key') return invalidGrant('The refresh token is bound to another DPoP key.');
  return invalidGrant('The refresh token is invalid, expired or revoked.');
}

async function reused(ctx: TokenIssuing, grantId: string, clientId: string): Promise<never> {
  await revokeGrant(ctx, grantId);
  ctx.emit({ type: 'refresh_token.reused', clientId, grantId });
  throw invalidGrant('The refresh token has already been used; the grant is revoked.');
}
