import type { ClaimsSource } from '../context.js';
import { oauthError } from '../errors.js';
import type { ClaimsRequest } from './claims-hook.js';

export type { ClaimsHook, ClaimsRequest, ClaimsTarget } from './claims-hook.js';

/**
 * Claims the hook can never set: those of JWT (RFC 7519 §4.1), of RFC 9068 access tokens and
 * Gatehouse's own (`token_family`, `gid`, `sub_kind`), of ID tokens (OpenID Connect Core §2,
 * §3.1.3.6), of proof of possession and delegation (`cnf` RFC 7800, `act` / `may_act` RFC 8693)
 * and of rich authorization requests (`authorization_details` RFC 9396 §9.1: what the user granted).
 */
export const RESERVED_CLAIMS: ReadonlySet<string> = new Set([
  'iss',
  'sub',
  'aud',
  'exp',
  'iat',
  'nbf',
  'jti',
  'typ',
  'client_id',
  'scope',
  'token_family',
  'gid',
  'sub_kind',
  'auth_time',
  'nonce',
  'acr',
  'amr',
  'azp',
  'at_hash',
  'c_hash',
  'sid',
  'cnf',
  'act',
  'may_act',
  'authorization_details',
]);

/** Largest JSON of the hook's claims in one access token: access tokens travel in every request header. */
export const MAX_ACCESS_TOKEN_CLAIMS_BYTES = 2048;

/** Reserved names a hook tried to set, warned about once each (at most 32 names). */
const warned = new Set<string>();

/**
 * The `claims` hook's claims for one answer, without the reserved ones (a warning is logged once
 * per name), or `{}` without a hook. A hook that throws or answers something else than an object is a
 * 503 / 500 (logged), never a token without the claims the host expected.
 */
export async function hostClaims(
  ctx: ClaimsSource,
  request: ClaimsRequest,
): Promise<Record<string, unknown>> {
  const hook = ctx.tokens.claims;
  if (hook === undefined) return {};
  let answer: unknown;
  try {
    answer = await hook(request);
  } catch (error) {
    ctx.logger.error('gatehouse: the claims hook threw', error);
    throw oauthError('temporarily_unavailable', 'The claims could not be read. Try again in a moment.');
  }
  if (answer === undefined || answer === null) return {};
  if (typeof answer !== 'object' || Array.isArray(answer)) {
    ctx.logger.error('gatehouse: the claims hook must answer an object of claims (or nothing).');
    throw oauthError('server_error', 'The claims could not be read.');
  }
  const claims: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(answer)) {
    if (RESERVED_CLAIMS.has(name)) {
      if (!warned.has(name) && warned.size < 32) {
        warned.add(name);
        ctx.logger.warn(
          `gatehouse: the claims hook may not set "${name}", a protocol claim; it was left out.`,
        );
      }
      continue;
    }
    if (value !== undefined) claims[name] = value;
  }
  if (request.target === 'access_token' && JSON.stringify(claims).length > MAX_ACCESS_TOKEN_CLAIMS_BYTES) {
    ctx.logger.error(
      `gatehouse: the claims hook answered more than ${MAX_ACCESS_TOKEN_CLAIMS_BYTES} bytes of access-token claims.`,
    );
    throw oauthError('server_error', 'The access token claims are too large.');
  }
  return claims;
}
