import { decodeProtectedHeader } from 'jose';
import type { TokenIssuing, TrustedJwtVerifying } from '../../context.js';
import { invalidGrant, invalidScope, oauthError } from '../../errors.js';
import type { Params } from '../../http/form.js';
import type { Answer } from '../../http/reply.js';
import { userSubject } from '../../storage/subject.js';
import { signAccessToken } from '../../tokens/access-token.js';
import type { AuthenticatedClient } from '../client-auth/authenticate-client.js';
import { JWT_BEARER_GRANT, useAssertionOnce } from '../jwt-assertion.js';
import { ENDPOINTS } from '../metadata.js';
import { authorizedResources, requestedResources, tokenAudience } from '../resource-indicators.js';
import { parseScope, resolveRequestedScope } from '../scope.js';
import { ID_JAG_TYP } from '../token-exchange/id-jag.js';
import { tokenResponse } from '../token-response.js';
import { claimedIssuer, jwtBearerEnabled, verifyTrustedJwt } from '../trusted-issuers.js';
import { tokenIssued } from './grant-tokens.js';

/**
 * `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer` (RFC 7523 §2.1): a JWT of a trusted issuer
 * (`trustedIssuers` with `jwtBearer: true`) is the grant. Its checks are those of `private_key_jwt`
 * assertions (`jwt-assertion.ts`): an asymmetric signature by the issuer's keys, `iss`, an `aud`
 * naming this server (its issuer or token endpoint, §3 item 3), an `exp` at most 300 s ahead,
 * `nbf`/`iat` with the clock tolerance, and a `jti` used once (§3 item 7, the replay store; a
 * replay is `invalid_grant`). Every failure is `invalid_grant` (§3.1).
 *
 * The token is for the local user the trusted issuer's `userId` maps `sub` to (who must exist). An
 * identity assertion JWT authorization grant (`typ: oauth-id-jag+jwt`,
 * draft-ietf-oauth-identity-assertion-authz-grant §5) must moreover name the authenticated client
 * in `client_id`; its `scope` and `resource` bound the token's (§5.1 and RFC 6749 §3.3), which a
 * request may narrow. Other assertions get the scope the client may request (as client
 * credentials) and the `resource`s asked for. No refresh token: the client asks again, with a new
 * assertion.
 */
export async function jwtBearerGrant(
  ctx: TokenIssuing & TrustedJwtVerifying,
  params: Params,
  { client }: AuthenticatedClient,
): Promise<Answer> {
  if (!jwtBearerEnabled(ctx)) {
    throw oauthError('unsupported_grant_type', 'The JWT bearer grant is not enabled on this server.');
  }
  const assertion = params.require('assertion');
  const issuer = claimedIssuer(assertion);
  const trusted = issuer === undefined ? undefined : ctx.tokens.trustedIssuers.get(issuer);
  const invalid = () =>
    invalidGrant('The assertion is invalid, expired, already used, or not from a trusted issuer.');
  if (!trusted?.jwtBearer) throw invalid();
  let typ: string | undefined;
  try {
    typ = decodeProtectedHeader(assertion).typ?.toLowerCase();
  } catch {
    throw invalid();
  }
  const isIdJag = typ === ID_JAG_TYP || typ === `application/${ID_JAG_TYP}`;
  const claims = await verifyTrustedJwt(ctx, trusted, assertion, {
    audience: [ctx.issuer, ctx.issuer + ENDPOINTS.token],
    requiredClaims: ['sub', 'jti', ...(isIdJag ? ['client_id'] : [])],
  });
  if (!claims || typeof claims.sub !== 'string') throw invalid();
  // The ID-JAG's client_id is the client it was issued for (§5.1): never another client's grant.
  if (isIdJag && claims.client_id !== client.id) {
    throw invalidGrant('The assertion was issued for another client.');
  }
  const userId = await trusted.userId(claims, client);
  if (typeof userId !== 'string' || userId === '' || !(await ctx.users.findUser(userId))) {
    throw invalidGrant('The assertion names no user of this server.');
  }
  const scopeParam = params.get('scope');
  let scope: string;
  let audience: readonly string[] | undefined;
  if (isIdJag) {
    const granted = typeof claims.scope === 'string' ? parseScope(claims.scope) : [];
    const asked = scopeParam === undefined ? granted : parseScope(scopeParam);
    for (const token of asked) {
      if (!granted.includes(token))
        throw invalidScope(`The scope "${token}" was not granted by the assertion.`);
    }
    scope = resolveRequestedScope(ctx, client, asked.join(' '));
    const resource = claims.resource;
    const grantedResources =
      typeof resource === 'string'
        ? [resource]
        : Array.isArray(resource)
          ? resource.filter((r): r is string => typeof r === 'string')
          : undefined;
    audience = tokenAudience(ctx, grantedResources, requestedResources(params));
    if (audience !== undefined) authorizedResources(ctx, client, audience);
  } else {
    scope = resolveRequestedScope(ctx, client, scopeParam);
    audience = authorizedResources(ctx, client, requestedResources(params));
  }
  // Checked last, so that an assertion refused for another reason is not burnt.
  if (!(await useAssertionOnce(ctx, 'jwt-bearer', trusted.issuer, claims))) throw invalid();
  const subject = userSubject(userId);
  const access = await signAccessToken(ctx, {
    family: 'oauth2',
    subject,
    clientId: client.id,
    scope,
    ...(audience === undefined ? {} : { audience }),
    ttl: ctx.tokens.accessTokenTtl,
  });
  ctx.emit(tokenIssued(client.id, subject, JWT_BEARER_GRANT));
  return tokenResponse({ accessToken: access.token, expiresIn: ctx.tokens.accessTokenTtl, scope });
}
