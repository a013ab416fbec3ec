/**
 * The verified claims of an access token, apart from `access-token.ts` (which signs and verifies
 * them with the instance context) so that the verified-token cache the context holds can name them
 * without an import cycle.
 */
import type { Subject } from '../storage/types.js';
import type { EpochSeconds } from '../time.js';
import type { ActClaim } from './act.js';
import type { AuthorizationDetail } from './authorization-details.js';

/** Which issuing path produced an access token. */
export type TokenFamily = 'oauth2' | 'auth_api';

/** What an access token says, once verified. */
export interface AccessTokenClaims {
  readonly family: TokenFamily;
  /** Who the token speaks for: a user, or a client acting for itself. */
  readonly subject: Subject;
  /** The `sub` claim: the user id, or the client id of a client subject. */
  readonly sub: string;
  /** The OAuth client (absent for Auth API tokens, which no client requested). */
  readonly clientId?: string;
  /** Space-separated scope (may be empty). */
  readonly scope: string;
  /** The `aud` claim as a list: the resources the token is for (RFC 9068 §3, RFC 8707). */
  readonly audience: readonly string[];
  /** Token id (`jti`), the handle of single-token revocation. */
  readonly jti: string;
  /** The grant the token belongs to (`gid`), the handle of grant revocation. */
  readonly grantId?: string;
  /** The delegation chain (RFC 8693 §4.1 `act`) of a token issued by token exchange. */
  readonly act?: ActClaim;
  /**
   * The JWK SHA-256 thumbprint of the DPoP key the token is bound to (`cnf.jkt`, RFC 9449 §6.1):
   * it is usable only with a proof of that key.
   */
  readonly jkt?: string;
  /** The authorization details the token grants (RFC 9396 §9.1 `authorization_details`). */
  readonly authorizationDetails?: readonly AuthorizationDetail[];
  readonly iat: EpochSeconds;
  readonly exp: EpochSeconds;
}
