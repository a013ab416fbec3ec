import type { Subject } from '../storage/types.js';
import type { EpochSeconds } from '../time.js';
import type { TokenFamily } from '../tokens/access-token-claims.js';
import type { ActClaim } from '../tokens/act.js';
import type { AuthorizationDetail } from '../tokens/authorization-details.js';

/** How a caller may prove who it is on a REST operation. */
export type AuthScheme = 'bearer' | 'session';

/** What a REST operation accepts. */
export interface AuthenticateOptions {
  /** Accepted schemes, e.g. `['bearer', 'session']`. */
  readonly schemes: readonly AuthScheme[];
  /** Scopes a bearer token must carry (all of them); sessions carry every scope of their user. */
  readonly scope?: string | readonly string[];
  /**
   * The protected resource the operation belongs to (its RFC 8707 / RFC 9728 identifier, e.g.
   * `https://example.com/mcp`): a bearer token must name it in its `aud`, else 401 `invalid_token`
   * (RFC 9068 §4; a token issued for another resource is never accepted here). It should be one of
   * the instance's `resources`, or tokens for it cannot be issued. Default: the instance's
   * `audience`.
   */
  readonly resource?: string;
  /**
   * The URL of the resource's RFC 9728 metadata document, sent as `resource_metadata` (with the
   * required `scope`) in the Bearer challenge of every 401 and 403 (RFC 9728 §5.1), so that a
   * client (an MCP client) discovers the authorization server from a refused request.
   */
  readonly resourceMetadata?: string;
  /**
   * Whom a bearer token may speak for: `'user'` (a user, through an OAuth client or the Auth API;
   * sessions are always users) and/or `'client'` (a client acting for itself, with a token of the
   * client credentials grant, RFC 6749 §4.4). Default `['user']`, so an operation written for users
   * never mistakes a client id for a user id; list `'client'` for operations services may call.
   * A token of a subject not listed gets 403 `insufficient_scope`.
   */
  readonly subjects?: readonly SubjectKind[];
}

/** The kinds of {@link Subject}: a user, or a client acting for itself. */
export type SubjectKind = Subject['kind'];

/** The authenticated caller of a REST operation. */
export interface Caller {
  /**
   * The `sub`: the user's id, or for a client acting for itself (client credentials) its client id.
   * Use {@link subject} to tell them apart.
   */
  readonly sub: string;
  /** Who the caller is: a user (sessions always), or a client acting for itself. */
  readonly subject: Subject;
  /** How the caller authenticated. */
  readonly scheme: AuthScheme;
  /** The OAuth client, for OAuth 2.0 bearer tokens. */
  readonly clientId?: string;
  /** Granted scopes (empty for sessions, which are not scope-limited). */
  readonly scope: readonly string[];
  /** Token family, for bearer tokens. */
  readonly family?: TokenFamily;
  /** Token id (`jti`) for bearer tokens. */
  readonly tokenId?: string;
  /**
   * Who acts for the subject, for a bearer token issued by token exchange (RFC 8693 §4.1 `act`):
   * the current actor, with the prior ones nested in its own `act`. Absent when the subject itself
   * (or its own client) holds the token.
   */
  readonly act?: ActClaim;
  /** Expiry of the token or session. */
  readonly expiresAt: EpochSeconds;
  /**
   * For a DPoP-bound token (RFC 9449), presented with a proof of its key: the key's JWK SHA-256
   * thumbprint (`cnf.jkt`).
   */
  readonly dpopJkt?: string;
  /**
   * The authorization details the bearer token grants (RFC 9396 §9.1 `authorization_details`), when
   * it carries any: what the operation checks beyond the scope (e.g. a `ticket_access` detail whose
   * `actions` include `write`). Read them by type with `authorizationDetailsOf(caller, type)`.
   * Absent for sessions and for tokens without details.
   */
  readonly authorizationDetails?: readonly AuthorizationDetail[];
}

/** Outcome of `gatehouse.authenticate`: the caller, or a ready 401/403 response to send as is. */
export type AuthenticationResult =
  | { readonly ok: true; readonly caller: Caller }
  | { readonly ok: false; readonly response: Response };
