import type { DpopChecks } from '../dpop/proof.js';
import type { DpopSettings } from '../dpop/settings.js';
import { errorDescriptionText, oauthError, type ProtocolError, quoteAuthParam } from '../errors.js';
import type { TokenRejection } from '../tokens/access-token.js';
import type { ResourceChallenge } from './challenge.js';

/*
 * The refusals of a DPoP-authenticated request (RFC 9449 §7.1): 401 with a `DPoP` challenge naming
 * the error and the accepted algorithms (`algs`), or 403 for a missing scope. A `use_dpop_nonce`
 * answer carries a fresh `DPoP-Nonce` (§9).
 */

type DpopChallengeContext = Pick<DpopChecks, 'issuer'> & {
  readonly settings: Pick<DpopSettings, 'algorithms'>;
};

/** The `DPoP` challenge (§7.1): realm, the error attributes, `algs`, and the resource's metadata. */
export function dpopChallenge(
  ctx: DpopChallengeContext,
  params: Record<string, string> = {},
  resource?: ResourceChallenge,
): string {
  let challenge = `DPoP realm=${quoteAuthParam(ctx.issuer)}`;
  for (const [name, value] of Object.entries(params)) {
    challenge += `, ${name}=${quoteAuthParam(name === 'error_description' ? errorDescriptionText(value) : value)}`;
  }
  if (resource?.scope?.length && params.scope === undefined)
    challenge += `, scope=${quoteAuthParam(resource.scope.join(' '))}`;
  challenge += `, algs=${quoteAuthParam(ctx.settings.algorithms.join(' '))}`;
  if (resource?.resourceMetadata !== undefined)
    challenge += `, resource_metadata=${quoteAuthParam(resource.resourceMetadata)}`;
  return challenge;
}

const TOKEN_DESCRIPTIONS: Readonly<Record<TokenRejection, string>> = {
  invalid: 'The access token is invalid, expired or revoked.',
  expired: 'The access token has expired.',
  revoked: 'The access token has been revoked.',
  issuer: 'The access token was issued by another issuer.',
  audience: 'The access token is not meant for this API (its audience does not name it).',
};

/** 401 `invalid_token` with a DPoP challenge, saying why as far as `reason` may. */
export function dpopInvalidToken(
  ctx: DpopChallengeContext,
  reason: TokenRejection | string,
  resource?: ResourceChallenge,
): ProtocolError {
  const description = Object.hasOwn(TOKEN_DESCRIPTIONS, reason)
    ? TOKEN_DESCRIPTIONS[reason as TokenRejection]
    : reason;
  return oauthError('invalid_token', description, {
    challenge: dpopChallenge(ctx, { error: 'invalid_token', error_description: description }, resource),
  });
}

/** 401 `invalid_dpop_proof` or `use_dpop_nonce` (with `DPoP-Nonce`) with a DPoP challenge. */
export function dpopProofRefused(
  ctx: DpopChallengeContext,
  error: 'invalid_dpop_proof' | 'use_dpop_nonce',
  description: string,
  resource?: ResourceChallenge,
  nonce?: string,
): ProtocolError {
  return oauthError(error, description, {
    challenge: dpopChallenge(ctx, { error, error_description: description }, resource),
    unauthenticated: true,
    ...(nonce === undefined ? {} : { dpopNonce: nonce }),
  });
}

/** 400 `invalid_request` with a DPoP challenge: a malformed DPoP authorization header. */
export function dpopInvalidRequest(
  ctx: DpopChallengeContext,
  description: string,
  resource?: ResourceChallenge,
): ProtocolError {
  return oauthError('invalid_request', description, {
    challenge: dpopChallenge(ctx, { error: 'invalid_request', error_description: description }, resource),
  });
}

/** 403 `insufficient_scope` with a DPoP challenge naming every scope the operation needs. */
export function dpopInsufficientScope(
  ctx: DpopChallengeContext,
  required: readonly string[],
  resource?: ResourceChallenge,
): ProtocolError {
  const description = 'The access token lacks a scope this operation requires.';
  return oauthError('insufficient_scope', description, {
    challenge: dpopChallenge(
      ctx,
      { error: 'insufficient_scope', error_description: description, scope: required.join(' ') },
      resource,
    ),
  });
}

/**
 * 401 for a DPoP-bound token presented as a bearer token (§7.2: it must be refused; whoever holds
 * it without the key must not use it): `invalid_token`, challenging with both schemes.
 */
export function boundTokenAsBearer(
  ctx: DpopChallengeContext,
  bearerChallenge: string,
  resource?: ResourceChallenge,
): ProtocolError {
  const description = 'The access token is DPoP-bound: present it with the DPoP scheme and a proof.';
  return oauthError('invalid_token', description, {
    challenge: `${bearerChallenge}, ${dpopChallenge(ctx, { error: 'invalid_token', error_description: description }, resource)}`,
  });
}
