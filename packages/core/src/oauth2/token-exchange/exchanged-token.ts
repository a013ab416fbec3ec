import type { ClientRecord, Subject } from '../../storage/types.js';
import type { ActClaim } from '../../tokens/act.js';

export type { ActClaim } from '../../tokens/act.js';

/** RFC 8693 §3 token type identifiers (and the ID-JAG's, draft-ietf-oauth-identity-assertion-authz-grant). */
export const TOKEN_TYPES = {
  accessToken: 'urn:ietf:params:oauth:token-type:access_token',
  idToken: 'urn:ietf:params:oauth:token-type:id_token',
  jwt: 'urn:ietf:params:oauth:token-type:jwt',
  idJag: 'urn:ietf:params:oauth:token-type:id-jag',
} as const;

/** RFC 8693 §2.1: the token exchange grant type. */
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';

/** A verified `subject_token` or `actor_token`, as the token exchange policy sees it. */
export interface ExchangedToken {
  /** Its issuer: this instance's, or a trusted issuer's. */
  readonly issuer: string;
  /** Whether this instance issued it. */
  readonly local: boolean;
  /**
   * What it proved to be: this instance's access token, this instance's ID token, or a trusted
   * issuer's JWT.
   */
  readonly kind: 'access_token' | 'id_token' | 'jwt';
  /** Its RFC 8693 §3 token type as sent (`…:access_token`, `…:id_token`, `…:jwt`). */
  readonly tokenType: string;
  /** Its `sub`. */
  readonly sub: string;
  /** For this instance's tokens: a user, or a client acting for itself. */
  readonly subject?: Subject;
  /** The client it was issued to (`client_id` of an access token, `aud` of an ID token), when known. */
  readonly clientId?: string;
  /** Its scope (empty for ID tokens and JWTs without one). */
  readonly scope: readonly string[];
  /** Its `aud`. */
  readonly audience: readonly string[];
  /** The delegation chain it already carries. */
  readonly act?: ActClaim;
  /**
   * The JWK SHA-256 thumbprint of the DPoP key it is bound to (`cnf.jkt`, RFC 9449 §6.1), when it
   * is DPoP-bound: the exchange then needs a proof of that key (see
   * `TokenExchangeDecision.dpopBoundSubject`).
   */
  readonly jkt?: string;
  /** Its expiry, epoch seconds. */
  readonly exp: number;
  /** Every verified claim. */
  readonly claims: Readonly<Record<string, unknown>>;
}

/** What the token exchange policy decides on. */
export interface TokenExchangeRequest {
  /** The authenticated client asking. */
  readonly client: ClientRecord;
  /** The verified `subject_token`. */
  readonly subject: ExchangedToken;
  /** The verified `actor_token`, when one was sent. */
  readonly actor?: ExchangedToken;
  /** What the request asks for. */
  readonly requested: {
    /** `requested_token_type` (default `…:access_token`). */
    readonly tokenType: string;
    /** The `scope` parameter's tokens, when sent. */
    readonly scope?: readonly string[];
    /** The `resource` (RFC 8707) and `audience` parameters together, validated. */
    readonly audience: readonly string[];
  };
}
