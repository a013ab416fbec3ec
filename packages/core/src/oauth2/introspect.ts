import type { ClientRequest, Context, RevocationCheck, TokenVerifying } from '../context.js';
import { invalidClient, logRefusedRequest } from '../errors.js';
import { readForm } from '../http/form.js';
import type { Answer } from '../http/reply.js';
import { noStoreJson } from '../http/responses.js';
import { recordedText } from '../recorded-text.js';
import { clientNamed } from '../records/record-problems.js';
import { subjectId } from '../storage/subject.js';
import { toEpochSeconds } from '../time.js';
import {
  type AccessTokenClaims,
  isAccessTokenRevoked,
  type TokenRejection,
  verifyAccessTokenOrSayWhy,
} from '../tokens/access-token.js';
import { hashSecret } from '../tokens/secrets.js';
import { authenticateClient } from './client-auth/authenticate-client.js';
import { CLIENT_AUTH_METHODS } from './client-auth/methods.js';

/** RFC 7662 §2.2 answer for an inactive token: exactly `{"active": false}`. */
export const INACTIVE = Object.freeze({ active: false });

/** RFC 7662 §2.2 fields of an active access token. */
export function introspectAccessToken(
  ctx: Pick<Context, 'issuer'>,
  claims: AccessTokenClaims,
): Record<string, unknown> {
  return {
    active: true,
    token_type: claims.jkt === undefined ? 'Bearer' : 'DPoP',
    scope: claims.scope,
    ...(claims.clientId ? { client_id: claims.clientId } : {}),
    sub: claims.sub,
    // Gatehouse's own claim, as in the token: this `sub` is a client acting for itself (RFC 9068 §2.2).
    ...(claims.subject.kind === 'client' ? { sub_kind: 'client' } : {}),
    aud: claims.audience.length === 1 ? claims.audience[0] : claims.audience,
    iss: ctx.issuer,
    exp: claims.exp,
    iat: claims.iat,
    jti: claims.jti,
    token_family: claims.family,
    // RFC 8693 §4.1: the delegation chain of an exchanged token, in introspection as in the token.
    ...(claims.act === undefined ? {} : { act: claims.act }),
    // RFC 9449 §6.2: the key a bound token is confirmed by.
    ...(claims.jkt === undefined ? {} : { cnf: { jkt: claims.jkt } }),
    // RFC 9396 §9.2: the details the token grants.
    ...(claims.authorizationDetails === undefined
      ? {}
      : { authorization_details: claims.authorizationDetails }),
  };
}

/**
 * Whether the user a token was issued to still exists. Introspection is off the hot path, so besides
 * the user's revocation mark (consulted with the token, see `isAccessTokenRevoked`) it asks the user store:
 * a deleted user's token is inactive even when the host did not call `revokeUser`.
 */
export async function userExists(ctx: Pick<Context, 'users'>, userId: string): Promise<boolean> {
  return (await ctx.users.findUser(userId)) !== null;
}

/**
 * `POST {base}/oauth2/v1/introspect` (RFC 7662). Only confidential clients may introspect, and only
 * their own tokens, or the access tokens for a resource they serve (`ClientRecord.introspects`, a
 * resource server asking about the tokens presented to it): any other token is reported inactive,
 * so introspection reveals nothing about tokens the caller has no business with. Refresh tokens
 * are the holder's only. A token of a deleted or revoked user is inactive.
 */
export async function introspectEndpoint(
  request: Request,
  ctx: ClientRequest & TokenVerifying & RevocationCheck & Pick<Context, 'tokens' | 'users' | 'logger'>,
): Promise<Answer> {
  const params = await readForm(request, ctx.limits.maxBodyBytes);
  const { client, method } = await authenticateClient(ctx, request, params);
  // RFC 7662 §2.1: the caller must authenticate; a public client has no credentials (§2.3: 401).
  if (!CLIENT_AUTH_METHODS[method]?.provesIdentity) throw invalidClient(ctx.issuer);
  const token = params.require('token');
  params.get('token_type_hint');
  const now = ctx.clock.now();
  const caller = clientNamed(client.id);

  // A token for any of the instance's resources (RFC 8707: the MCP server's, an exchanged token's
  // target), not only its own API: introspection serves every resource server of this issuer.
  const signed = await verifyAccessTokenOrSayWhy(ctx, token);
  let notAccess: string;
  if (typeof signed === 'string') notAccess = NOT_VERIFIED[signed];
  else if (!signed.audience.some((audience) => ctx.tokens.resources.has(audience)))
    notAccess = `an access token for ${audiencesOf(signed)}, none of them a resource of this instance`;
  else if (await isAccessTokenRevoked(ctx, signed))
    notAccess = 'a revoked access token (the token, its grant or its user)';
  else {
    // RFC 7662 §4: the holder's client, or a resource server the token is meant for.
    const mayAsk =
      signed.clientId === client.id ||
      signed.audience.some((audience) => client.introspects?.includes(audience) === true);
    if (!mayAsk)
      return inactive(
        ctx,
        request,
        `${caller} may not introspect this access token: it is not the token's client (${signed.clientId === undefined ? 'none' : clientNamed(signed.clientId)}), and its introspects (${client.introspects?.length ? client.introspects.map(quoted).join(', ') : 'none'}) names none of the token's audiences (${audiencesOf(signed)}); a resource server lists its audience in introspects`,
      );
    if (signed.subject.kind === 'user' && !(await userExists(ctx, signed.sub)))
      return inactive(ctx, request, `${caller} asked about an access token whose user no longer exists`);
    return noStoreJson(introspectAccessToken(ctx, signed));
  }
  const refresh = await ctx.storage.grants.findRefreshToken(await hashSecret(token), now);
  if (!refresh)
    return inactive(
      ctx,
      request,
      `${caller} asked about ${notAccess}, and no live refresh token has that value`,
    );
  if (refresh.rotatedAt !== undefined)
    return inactive(
      ctx,
      request,
      `${caller} asked about a refresh token that was rotated (replaced by a newer one)`,
    );
  if (refresh.clientId !== client.id)
    return inactive(
      ctx,
      request,
      `${caller} asked about a refresh token of ${clientNamed(refresh.clientId)}: only its holder may`,
    );
  if (
    refresh.subject === undefined ||
    (refresh.subject.kind === 'user' && !(await userExists(ctx, refresh.subject.userId)))
  )
    return inactive(ctx, request, `${caller} asked about a refresh token whose user no longer exists`);
  return noStoreJson({
    active: true,
    token_type: 'refresh_token',
    scope: refresh.scope,
    client_id: refresh.clientId,
    sub: subjectId(refresh.subject),
    ...(refresh.audience?.length ? { aud: refresh.audience } : {}),
    iss: ctx.issuer,
    exp: toEpochSeconds(refresh.expiresAt),
    iat: toEpochSeconds(refresh.issuedAt),
  });
}

/**
 * `{"active": false}`, all RFC 7662 §2.2 lets the caller learn, and the debug log's line saying
 * why (with `debug: true`), so that a resource server refused for its registration can be told
 * from one shown a bad token.
 */
export function inactive(ctx: Pick<Context, 'logger'>, request: Request, why: string): Answer {
  if (ctx.logger.debug) logRefusedRequest(ctx.logger.debug, request, '200 {"active":false}', why);
  return noStoreJson(INACTIVE);
}

/** The debug log's words for a token that is no access token of this instance, by rejection. */
export const NOT_VERIFIED: Readonly<Record<TokenRejection | 'malformed', string>> = {
  malformed: 'a token that is not even of the bearer token syntax',
  invalid: 'no valid access token of this issuer (malformed, unknown key, bad signature, type or claims)',
  expired: 'an expired access token',
  revoked: 'a revoked access token (the token, its grant or its user)',
  issuer: 'an access token of another issuer',
  audience: 'an access token for another audience',
};

const quoted = (value: string) => JSON.stringify(recordedText(value));
const audiencesOf = (claims: AccessTokenClaims) => claims.audience.map(quoted).join(', ');
