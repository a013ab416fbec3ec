/**
 * The `claims` hook's types, apart from `host-claims.ts` (which runs the hook with the instance
 * context) so that the context and the options can name the hook without an import cycle.
 */
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
 * overridden (see `RESERVED_CLAIMS`); access-token claims are bounded (2,048 bytes of JSON).
 */
export type ClaimsHook = (
  request: ClaimsRequest,
) =>
  | Readonly<Record<string, unknown>>
  | null
  | undefined
  | Promise<Readonly<Record<string, unknown>> | null | undefined>;
