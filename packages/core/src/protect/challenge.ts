import type { Context } from '../context.js';
import { errorDescriptionText, ProtocolError, quoteAuthParam } from '../errors.js';

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
export function credentialsRequired(ctx: ChallengeContext, acceptsBearer: boolean): ProtocolError {
  return new ProtocolError('unauthorized', 'Authentication is required for this operation.', {
    status: 401,
    headers: {
      'WWW-Authenticate': acceptsBearer ? bearerChallenge(ctx) : `Session realm=${quoteAuthParam(ctx.realm)}`,
    },
  });
}

/** 401 `invalid_token` (RFC 6750 §3.1): expired, revoked, malformed or otherwise invalid. */
export function invalidToken(ctx: ChallengeContext): ProtocolError {
  const description = 'The access token is invalid, expired or revoked.';
  return new ProtocolError('invalid_token', description, {
    status: 401,
    headers: {
      'WWW-Authenticate': bearerChallenge(ctx, { error: 'invalid_token', error_description: description }),
    },
  });
}

/** 400 `invalid_request` with a Bearer challenge (RFC 6750 §3.1): a malformed bearer request. */
export function invalidBearerRequest(ctx: ChallengeContext, description: string): ProtocolError {
  return new ProtocolError('invalid_request', description, {
    status: 400,
    headers: {
      'WWW-Authenticate': bearerChallenge(ctx, { error: 'invalid_request', error_description: description }),
    },
  });
}

/** 403 `insufficient_scope` naming the scopes the operation needs (RFC 6750 §3.1). */
export function insufficientScope(ctx: ChallengeContext, required: readonly string[]): ProtocolError {
  const description = 'The access token lacks a scope this operation requires.';
  return new ProtocolError('insufficient_scope', description, {
    status: 403,
    headers: {
      'WWW-Authenticate': bearerChallenge(ctx, {
        error: 'insufficient_scope',
        error_description: description,
        scope: required.join(' '),
      }),
    },
  });
}

/** 403 for a session-authenticated state-changing request that a cross-site page could have forged. */
export function crossSiteSessionRefused(description: string): ProtocolError {
  return new ProtocolError('forbidden', description, { status: 403 });
}

/** 401 for a session cookie that names no active session. */
export function sessionEnded(ctx: ChallengeContext, acceptsBearer: boolean): ProtocolError {
  const error = credentialsRequired(ctx, acceptsBearer);
  return new ProtocolError('unauthorized', 'The session has ended; log in again.', {
    status: 401,
    headers: error.headers,
  });
}
