import type { Context } from '../context.js';
import { oauthError } from '../errors.js';
import type { UserRecord } from '../storage/types.js';

/** Where claims of the `claims` hook go. */
export type ClaimsTarget = 'id_token' | 'userinfo' | 'access_token';

/** What the `claims` hook is asked about: one token or userinfo answer. */
export interface ClaimsRequest {
  /** What the claims are for. */
  readonly target: ClaimsTarget;
  /** The subject: the user's id (or, for a client's own access token, its client id). */
  readonly sub: string;
  /** Whether `sub` is a user or a client acting for itself (client credentials). */
  readonly subjectKind: 'user' | 'client';
  /** The client the token or answer is for (absent for userinfo with the session cookie). */
  readonly clientId?: string;
  /** The granted scopes. */
  readonly scopes: readonly string[];
  /** The resources (`aud`) of the access token, or of the grant; empty: the instance's own API. */
  readonly resources: readonly string[];
  /** The user as `users.findUser` returned it, when Gatehouse looked it up for this answer. */
  readonly user?: UserRecord | null;
}

/**
 * Adds the host's claims (roles, tenant, plan, …) to ID tokens, userinfo answers and access tokens.
 * Return the claims to add (JSON values), or nothing. Protocol claims are Gatehouse's and are never
 * overridden (see {@link RESERVED_CLAIMS}); access-token claims are bounded (2,048 bytes of JSON).
 */
export type ClaimsHook = (
  request: ClaimsRequest,
) =>
  | Readonly<Record<string, unknown>>
  | null
  | undefined
  | Promise<Readonly<Record<string, unknown>> | null | undefined>;

/**
 * Claims the hook can never set: those of JWT (RFC 7519 §4.1), of RFC 9068 access tokens and
 * Gatehouse's own (`token_family`, `gid`, `sub_kind`), of ID tokens (OpenID Connect Core §2,
 * §3.1.3.6) and of proof of possession and delegation (`cnf` RFC 7800, `act` / `may_act` RFC 8693).
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
export async function hostClaims(ctx: Context, request: ClaimsRequest): Promise<Record<string, unknown>> {
  const hook = ctx.claims;
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
