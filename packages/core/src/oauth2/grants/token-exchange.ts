import type { Context, TokenIssuing, TokenSigning } from '../../context.js';
import type { DpopProof } from '../../dpop/proof.js';
import { invalidRequest, invalidScope, oauthError } from '../../errors.js';
import type { GrantHandler } from '../../feature.js';
import type { Params } from '../../http/form.js';
import type { Answer } from '../../http/reply.js';
import { noStoreJson } from '../../http/responses.js';
import type { TokenExchangeDecision } from '../../options.js';
import { userSubject } from '../../storage/subject.js';
import type { Subject } from '../../storage/types.js';
import { toEpochSeconds } from '../../time.js';
import { signAccessToken } from '../../tokens/access-token.js';
import { type ActClaim, actDepth, MAX_ACT_DEPTH } from '../../tokens/act.js';
import type { AuthenticatedClient } from '../client-auth/authenticate-client.js';
import { CLIENT_AUTH_METHODS } from '../client-auth/methods.js';
import {
  authorizedResources,
  MAX_RESOURCE_LENGTH,
  MAX_RESOURCES_PER_REQUEST,
  requestedResources,
} from '../resource-indicators.js';
import { parseScope } from '../scope.js';
import { exchangedAudience, exchangedScope } from '../token-exchange/decision.js';
import {
  type ExchangedToken,
  TOKEN_EXCHANGE_GRANT,
  TOKEN_TYPES,
  type TokenExchangeRequest,
} from '../token-exchange/exchanged-token.js';
import { signIdJag } from '../token-exchange/id-jag.js';
import { type PresentedTokenVerifying, verifyPresentedToken } from '../token-exchange/presented-token.js';
import type { TokenExchangeSettings } from '../token-exchange/settings.js';
import { tokenIssued } from './grant-tokens.js';

/** What the token exchange grant reads: its settings, checking presented tokens, issuing. */
type TokenExchanging = TokenIssuing & PresentedTokenVerifying;

/**
 * `grant_type=urn:ietf:params:oauth:grant-type:token-exchange` (RFC 8693 §2): a client presents a
 * token of a subject (and optionally one of an actor) and receives a new token for another target.
 *
 * 1. Only clients that prove their identity, registered for the grant (the token endpoint checks
 *    the registration), on an instance with `tokenExchange` on.
 * 2. The tokens are verified (`verifyPresentedToken`): invalid ones are `invalid_request` (§2.2.2).
 * 3. The host's policy decides with the client, subject, actor and what is asked; `null` is
 *    `unauthorized_client`. The new token's scope and audience must lie within the decision
 *    (`invalid_scope`, `invalid_target`), and an access token subject's scope bounds the scope too.
 * 4. The new access token names its actor in `act` (§4.1): the `actor_token`'s subject, else the
 *    client itself; the subject token's own chain is nested inside. Only a decision with
 *    `impersonation: true`, and no `actor_token`, issues it without a new actor. It keeps the
 *    subject token's grant (`gid`), so revoking that grant or user revokes it too, and lives no
 *    longer than the subject token nor `accessTokenTtl`. No refresh token (§2.2.1 makes it optional).
 * 5. With `requested_token_type=urn:ietf:params:oauth:token-type:id-jag`, an identity assertion JWT
 *    authorization grant for another authorization server instead (see {@link idJagExchange}).
 */
export function tokenExchangeGrant(settings: TokenExchangeSettings): GrantHandler {
  return (
    ctx: Pick<
      Context,
      | 'issuer'
      | 'clock'
      | 'randomBytes'
      | 'emit'
      | 'logger'
      | 'storage'
      | 'clients'
      | 'users'
      | 'keys'
      | 'tokens'
    >,
    params,
    client,
    dpop,
  ) => exchangeToken(ctx, settings, params, client, dpop);
}

async function exchangeToken(
  ctx: TokenExchanging,
  settings: TokenExchangeSettings,
  params: Params,
  { client, method }: AuthenticatedClient,
  dpop?: DpopProof,
): Promise<Answer> {
  if (!CLIENT_AUTH_METHODS[method]?.provesIdentity) {
    throw oauthError('unauthorized_client', 'Only clients that authenticate may exchange tokens.');
  }
  const subjectToken = params.require('subject_token');
  const subjectTokenType = params.require('subject_token_type');
  const actorToken = params.get('actor_token');
  const actorTokenType = params.get('actor_token_type');
  // §2.1: actor_token_type is REQUIRED with actor_token, and MUST NOT be sent without it.
  if ((actorToken === undefined) !== (actorTokenType === undefined)) {
    throw invalidRequest('actor_token and actor_token_type must be sent together (RFC 8693 section 2.1).');
  }
  const requestedType = params.get('requested_token_type') ?? TOKEN_TYPES.accessToken;
  if (requestedType !== TOKEN_TYPES.accessToken && requestedType !== TOKEN_TYPES.idJag) {
    throw invalidRequest(
      `The requested_token_type is not supported (use ${TOKEN_TYPES.accessToken} or ${TOKEN_TYPES.idJag}).`,
    );
  }
  const scopeParam = params.get('scope');
  const requestedScope = scopeParam === undefined ? undefined : parseScope(scopeParam);
  const resources = requestedResources(params);
  const audiences = audienceParameters(params);

  const subject = await verifyPresentedToken(ctx, client, 'subject_token', subjectToken, subjectTokenType);
  const actor =
    actorToken === undefined
      ? undefined
      : await verifyPresentedToken(ctx, client, 'actor_token', actorToken, actorTokenType!);
  const request: TokenExchangeRequest = {
    client,
    subject,
    ...(actor === undefined ? {} : { actor }),
    requested: {
      tokenType: requestedType,
      ...(requestedScope === undefined ? {} : { scope: requestedScope }),
      audience: [...new Set([...resources, ...audiences])],
    },
  };
  const decision = await settings.policy(request);
  if (!decision || typeof decision !== 'object') {
    throw oauthError(
      'unauthorized_client',
      'The token exchange policy does not allow this client this exchange.',
    );
  }
  if (requestedType === TOKEN_TYPES.idJag)
    return idJagExchange(ctx, settings, request, decision, resources, audiences);

  const jkt = issuedTokenKey(subject, dpop, decision);
  const scope = exchangedScope(requestedScope, decision, subject, subject.kind === 'access_token');
  // RFC 6749 §3.3 and §5.2: an access token is issued for some scope; when none is both requested
  // (or allowed, without a request) and allowed, the answer is invalid_scope (RFC 8693 §2.2.2
  // refers to §5.2), never a token with "scope": "".
  if (scope.length === 0)
    throw invalidScope(
      'This exchange may grant no scope (the policy allows none, or the subject carries none).',
    );
  // RFC 8707 rules for what this instance issues tokens for: known resources (and the client's own
  // list, when it has one), each allowed by the decision.
  const audience = exchangedAudience(request.requested.audience, decision, ctx.tokens.audienceList);
  authorizedResources(ctx, client, audience);
  const tokenSubject = await localSubject(ctx, client.id, subject, decision);
  const act = newActor(ctx, client.id, subject, actor, decision);
  if (actDepth(act) > MAX_ACT_DEPTH) {
    throw invalidRequest(`The delegation chain would be longer than ${MAX_ACT_DEPTH} actors.`);
  }
  const now = toEpochSeconds(ctx.clock.now());
  // Never outlives what it was exchanged from: RFC 8693 §5 counts a limited lifetime among the
  // constraints against abuse of delegated rights, and an exchange must not extend a stolen token.
  const ttl = Math.max(1, Math.min(ctx.tokens.accessTokenTtl, subject.exp - now));
  const grantId = subject.local && typeof subject.claims.gid === 'string' ? subject.claims.gid : undefined;
  const access = await signAccessToken(ctx, {
    family: 'oauth2',
    subject: tokenSubject,
    clientId: client.id,
    scope: scope.join(' '),
    audience,
    ...(grantId === undefined ? {} : { grantId }),
    ...(act === undefined ? {} : { act }),
    ...(jkt === undefined ? {} : { jkt }),
    ttl,
  });
  ctx.emit(tokenIssued(client.id, tokenSubject, TOKEN_EXCHANGE_GRANT));
  // §2.2.1: issued_token_type is REQUIRED; token_type says how it is used (RFC 9449 §5: DPoP when
  // bound to the proof's key).
  return noStoreJson({
    access_token: access.token,
    issued_token_type: TOKEN_TYPES.accessToken,
    token_type: jkt === undefined ? 'Bearer' : 'DPoP',
    expires_in: ttl,
    scope: scope.join(' '),
  });
}

/**
 * The DPoP key the new access token is bound to (`cnf.jkt`), if any. A DPoP-bound subject token is
 * only as good as a proof of its key (RFC 9449 §7.1 refuses it at a resource server without one):
 * by default (`dpopBoundSubject: 'require-proof'`) the request must carry a proof of that very key,
 * and the new token stays bound to it, so an exchange never turns a sender-constrained token into
 * a bearer token. The proof itself passed the token endpoint's RFC 9449 §4.3 checks (`htm`, `htu`,
 * `iat`, `jti` replay, nonce) before the grant ran. Otherwise a proof, when sent, binds the new
 * token to its key (§5), as at every grant.
 */
function issuedTokenKey(
  subject: ExchangedToken,
  dpop: DpopProof | undefined,
  decision: TokenExchangeDecision,
): string | undefined {
  if (subject.jkt !== undefined && decision.dpopBoundSubject !== 'issue-bearer') {
    // No proof at all: a required element of the request is missing, RFC 6749 §5.2's
    // invalid_request (and RFC 8693 §2.2.2's for a subject_token unusable as sent). There is no
    // proof to call invalid, so not invalid_dpop_proof.
    if (dpop === undefined)
      throw invalidRequest(
        'The subject_token is DPoP-bound: send a DPoP proof of its key with the exchange (RFC 9449).',
      );
    // A proof of another key: it fails the check that its key is the token's (RFC 9449 §4.3,
    // step 12), and a proof failing §4.3 is invalid_dpop_proof at the token endpoint (§5).
    if (dpop.jkt !== subject.jkt)
      throw oauthError(
        'invalid_dpop_proof',
        "The DPoP proof is not made with the subject_token's key (its cnf.jkt).",
      );
  }
  return dpop?.jkt;
}

/**
 * The `audience` parameters (RFC 8693 §2.1, repeatable): logical names or URIs of targets, bounded
 * like `resource` values.
 */
function audienceParameters(params: Params): string[] {
  const values = params.getAll('audience').filter(Boolean);
  if (values.length > MAX_RESOURCES_PER_REQUEST)
    throw oauthError(
      'invalid_target',
      `At most ${MAX_RESOURCES_PER_REQUEST} audience parameters are accepted.`,
    );
  for (const value of values) {
    if (value.length > MAX_RESOURCE_LENGTH)
      throw oauthError(
        'invalid_target',
        `An audience parameter is longer than ${MAX_RESOURCE_LENGTH} characters.`,
      );
  }
  return [...new Set(values)];
}

/**
 * Whom the new token speaks for: the subject of this instance's token, or for a trusted issuer's
 * token the local user the policy names (`userId`), who must exist.
 */
async function localSubject(
  ctx: Pick<Context, 'users'>,
  clientId: string,
  subject: ExchangedToken,
  decision: TokenExchangeDecision,
): Promise<Subject> {
  if (subject.local && subject.subject) {
    // A client's token for itself names that client twice (`sub` and `client_id`, RFC 9068 §2.2):
    // another client cannot hold a token of it, so only that client exchanges it.
    if (subject.subject.kind === 'client' && subject.sub !== clientId) {
      throw invalidRequest("The subject_token is another client's token for itself.");
    }
    return subject.subject;
  }
  const userId = decision.userId;
  if (typeof userId !== 'string' || userId === '' || !(await ctx.users.findUser(userId))) {
    throw invalidRequest(
      'The subject_token comes from another issuer, and the token exchange policy names no local user for it.',
    );
  }
  return userSubject(userId);
}

/**
 * The `act` claim of the new token (RFC 8693 §4.1): the current actor (the `actor_token`'s subject,
 * else the client) outermost, the subject token's chain nested inside. With an impersonation the
 * policy allowed (and no `actor_token`), the subject token's chain only, unchanged: an exchange
 * never drops actors already on record.
 */
function newActor(
  ctx: Pick<Context, 'issuer'>,
  clientId: string,
  subject: ExchangedToken,
  actor: ExchangedToken | undefined,
  decision: TokenExchangeDecision,
): ActClaim | undefined {
  const prior = subject.act === undefined ? {} : { act: subject.act };
  if (actor === undefined) {
    if (decision.impersonation === true) return subject.act;
    return { sub: clientId, sub_kind: 'client', ...prior };
  }
  return {
    sub: actor.sub,
    ...(actor.issuer === ctx.issuer ? {} : { iss: actor.issuer }),
    ...(actor.subject?.kind === 'client' ? { sub_kind: 'client' as const } : {}),
    ...prior,
  };
}

/**
 * The ID-JAG exchange (draft-ietf-oauth-identity-assertion-authz-grant §4.3): this instance as the
 * identity provider turns the user's ID token, issued to the client asking, into a short-lived
 * assertion for another authorization server (`audience`, one of `tokenExchange.idJagAudiences`
 * the decision allows), which that server redeems with the JWT bearer grant. No `actor_token` (the
 * profile does not use one). The response's `token_type` is `N_A`: it is not an access token.
 */
async function idJagExchange(
  ctx: TokenSigning & Pick<Context, 'emit'>,
  settings: TokenExchangeSettings,
  request: TokenExchangeRequest,
  decision: TokenExchangeDecision,
  resources: readonly string[],
  audiences: readonly string[],
): Promise<Answer> {
  const { client, subject } = request;
  const configured = settings.idJagAudiences;
  if (request.actor) throw invalidRequest('An ID-JAG is not requested with an actor_token.');
  if (subject.kind !== 'id_token') {
    throw invalidRequest(
      `An ID-JAG is requested with an ID token of this server (subject_token_type ${TOKEN_TYPES.idToken}).`,
    );
  }
  if (audiences.length !== 1)
    throw invalidRequest('An ID-JAG request names exactly one audience: the authorization server.');
  const audience = audiences[0]!;
  if (!configured.has(audience) || !(decision.audience ?? []).includes(audience)) {
    throw oauthError('invalid_target', 'ID-JAGs are not issued for this audience.');
  }
  const scope = exchangedScope(request.requested.scope, decision, subject, false);
  // Short-lived (the draft's example: 300 s), and never beyond the ID token it was made from.
  const ttl = Math.max(1, Math.min(settings.idJagTtl, subject.exp - toEpochSeconds(ctx.clock.now())));
  const jag = await signIdJag(ctx, {
    sub: subject.sub,
    audience,
    clientId: decision.audienceClientId ?? client.id,
    resource: resources,
    scope: scope.join(' '),
    ttl,
    authentication: subject.claims,
  });
  ctx.emit(tokenIssued(client.id, userSubject(subject.sub), TOKEN_EXCHANGE_GRANT));
  return noStoreJson({
    access_token: jag,
    issued_token_type: TOKEN_TYPES.idJag,
    token_type: 'N_A',
    expires_in: ttl,
    scope: scope.join(' '),
  });
}
