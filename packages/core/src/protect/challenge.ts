import type { Context } from '../context.js';
import { errorDescriptionText, oauthError, type ProtocolError, quoteAuthParam } from '../errors.js';
import type { TokenRejection } from '../tokens/access-token.js';

/*
 * The 401/403 answers of protected operations (RFC 6750 §3): a JSON body like every Gatehouse error,
 * plus the `WWW-Authenticate` challenge. The realm is the issuer.
 */

type ChallengeContext = Pick<Context, 'issuer'>;

/**
 * What a Bearer challenge says of the protected resource, when the operation declares one: the
 * RFC 9728 §5.1 `resource_metadata` URL and the scopes the operation requires (RFC 6750 §3 `scope`).
 */
export interface ResourceChallenge {
  readonly resourceMetadata?: string;
  readonly scope?: readonly string[];
}

/** The `Bearer` challenge (RFC 6750 §3): realm, the given attributes, the resource's scope and metadata. */
export function bearerChallenge(
  ctx: ChallengeContext,
  params: Record<string, string> = {},
  resource?: ResourceChallenge,
): string {
  let challenge = `Bearer realm=${quoteAuthParam(ctx.issuer)}`;
  for (const [name, value] of Object.entries(params)) {
    challenge += `, ${name}=${quoteAuthParam(name === 'error_description' ? errorDescriptionText(value) : value)}`;
  }
  if (resource?.scope?.length && params.scope === undefined) {
    challenge += `, scope=${quoteAuthParam(resource.scope.join(' '))}`;
  }
  if (resource?.resourceMetadata !== undefined) {
    challenge += `, resource_metadata=${quoteAuthParam(resource.resourceMetadata)}`;
  }
  return challenge;
}

/**
 * 401 without credentials. RFC 6750 §3.1: no `error` attribute in the challenge when the request
 * carried no authentication at all. Operations that accept bearer tokens challenge with `Bearer`;
 * session-only operations have no standard scheme to name, so they use `Session realm="…"`
 * (RFC 9110 §11.6.1 requires some challenge on a 401).
 */
export function credentialsRequired(
  ctx: ChallengeContext,
  acceptsBearer: boolean,
  description = 'Authentication is required for this operation.',
  resource?: ResourceChallenge,
): ProtocolError {
  return oauthError('unauthorized', description, {
    challenge: noCredentialsChallenge(ctx, acceptsBearer, resource),
  });
}

/**
 * `invalid_token` descriptions by reason. RFC 6750 §3.1 lets the description say why ("expired,
 * revoked, malformed, or invalid for other reasons"); the specific ones are given only for tokens
 * whose signature verified (see `TokenRejection`), so a forger learns nothing from them.
 */
const INVALID_TOKEN_DESCRIPTIONS: Readonly<Record<TokenRejection, string>> = {
  invalid: 'The access token is invalid, expired or revoked.',
  expired: 'The access token has expired.',
  revoked: 'The access token has been revoked.',
  issuer: 'The access token was issued by another issuer.',
  audience: 'The access token is not meant for this API (its audience does not name it).',
};

/**
 * 401 `invalid_token` (RFC 6750 §3.1), its description saying why as far as `reason` may; with
 * `resource`, the challenge names the protected resource's metadata (RFC 9728 §5.1), as for a token
 * issued for another resource (RFC 9068 §4, RFC 8707).
 */
export function invalidToken(
  ctx: ChallengeContext,
  reason: TokenRejection = 'invalid',
  resource?: ResourceChallenge,
): ProtocolError {
  const description = INVALID_TOKEN_DESCRIPTIONS[reason];
  return oauthError('invalid_token', description, {
    challenge: bearerChallenge(ctx, { error: 'invalid_token', error_description: description }, resource),
  });
}

/** 400 `invalid_request` with a Bearer challenge (RFC 6750 §3.1): a malformed bearer request. */
export function invalidBearerRequest(
  ctx: ChallengeContext,
  description: string,
  resource?: ResourceChallenge,
): ProtocolError {
  return oauthError('invalid_request', description, {
    challenge: bearerChallenge(ctx, { error: 'invalid_request', error_description: description }, resource),
  });
}

/**
 * 403 `insufficient_scope` naming every scope the operation needs, in one challenge (RFC 6750
 * §3.1), so that the client asks for all of them at once.
 */
export function insufficientScope(
  ctx: ChallengeContext,
  required: readonly string[],
  resource?: ResourceChallenge,
): ProtocolError {
  const description = 'The access token lacks a scope this operation requires.';
  return oauthError('insufficient_scope', description, {
    challenge: bearerChallenge(
      ctx,
      { error: 'insufficient_scope', error_description: description, scope: required.join(' ') },
      resource,
    ),
  });
}

/**
 * 403 `insufficient_scope` (RFC 6750 §3.1: "the request requires higher privileges than provided
 * by the access token") for a token whose subject the operation does not accept (`subjects`).
 */
export function subjectNotAccepted(ctx: ChallengeContext, kind: 'user' | 'client'): ProtocolError {
  const description =
    kind === 'client'
      ? 'This operation does not accept tokens of clients acting for themselves.'
      : 'This operation accepts tokens of clients acting for themselves only.';
  return oauthError('insufficient_scope', description, {
    challenge: bearerChallenge(ctx, { error: 'insufficient_scope', error_description: description }),
  });
}

/** 403 for a session-authenticated state-changing request that a cross-site page could have forged. */
export function crossSiteSessionRefused(description: string): ProtocolError {
  return oauthError('forbidden', description);
}

/** 401 for a session cookie that names no active session. */
export function sessionEnded(ctx: ChallengeContext, acceptsBearer: boolean): ProtocolError {
  return oauthError('unauthorized', 'The session has ended; log in again.', {
    challenge: noCredentialsChallenge(ctx, acceptsBearer),
  });
}

/** The challenge of a 401 without (valid) credentials: no `error` attribute (RFC 6750 §3.1). */
function noCredentialsChallenge(
  ctx: ChallengeContext,
  acceptsBearer: boolean,
  resource?: ResourceChallenge,
): string {
  return acceptsBearer ? bearerChallenge(ctx, {}, resource) : `Session realm=${quoteAuthParam(ctx.issuer)}`;
}
