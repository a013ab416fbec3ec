import type { Context } from '../context.js';
import { errorDescriptionText, oauthError, type ProtocolError, quoteAuthParam } from '../errors.js';

/*
 * The 401/403 answers of protected operations (RFC 6750 §3): a JSON body like every Gatehouse error,
 * plus the `WWW-Authenticate` challenge. The realm is the issuer.
 */

type ChallengeContext = Pick<Context, 'realm'>;

function bearerChallenge(ctx: ChallengeContext, params: Record<string, string> = {}): string {
  let challenge = `Bearer realm=${quoteAuthParam(ctx.realm)}`;
  for (const [name, value] of Object.entries(params)) {
    challenge += `, ${name}=${quoteAuthParam(name === 'error_description' ? errorDescriptionText(value) : value)}`;
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
): ProtocolError {
  return oauthError('unauthorized', description, {
    challenge: noCredentialsChallenge(ctx, acceptsBearer),
  });
}

/** 401 `invalid_token` (RFC 6750 §3.1): expired, revoked, malformed or otherwise invalid. */
export function invalidToken(ctx: ChallengeContext): ProtocolError {
  const description = 'The access token is invalid, expired or revoked.';
  return oauthError('invalid_token', description, {
    challenge: bearerChallenge(ctx, { error: 'invalid_token', error_description: description }),
  });
}

/** 400 `invalid_request` with a Bearer challenge (RFC 6750 §3.1): a malformed bearer request. */
export function invalidBearerRequest(ctx: ChallengeContext, description: string): ProtocolError {
  return oauthError('invalid_request', description, {
    challenge: bearerChallenge(ctx, { error: 'invalid_request', error_description: description }),
  });
}

/** 403 `insufficient_scope` naming the scopes the operation needs (RFC 6750 §3.1). */
export function insufficientScope(ctx: ChallengeContext, required: readonly string[]): ProtocolError {
  const description = 'The access token lacks a scope this operation requires.';
  return oauthError('insufficient_scope', description, {
    challenge: bearerChallenge(ctx, {
      error: 'insufficient_scope',
      error_description: description,
      scope: required.join(' '),
    }),
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
function noCredentialsChallenge(ctx: ChallengeContext, acceptsBearer: boolean): string {
  return acceptsBearer ? bearerChallenge(ctx) : `Session realm=${quoteAuthParam(ctx.realm)}`;
}
