/**
 * The validated form of one `trustedIssuers` entry, apart from `trusted-issuers.ts` (which validates
 * and verifies with the instance context) so that the context can hold it without an import cycle.
 */
import type { JWTVerifyGetKey } from 'jose';
import type { Awaitable } from '../awaitable.js';
import type { ClientRecord } from '../storage/types.js';

/** A trusted issuer (the `trustedIssuers` option), validated. */
export interface TrustedIssuer {
  readonly issuer: string;
  /** Its inline keys, or `undefined` when they are fetched from {@link jwksUri}. */
  readonly keys: JWTVerifyGetKey | undefined;
  readonly jwksUri: string | undefined;
  /** The `aud` its exchanged tokens must name. */
  readonly audience: string;
  readonly jwtBearer: boolean;
  /**
   * The `typ` header values (normalized: lower case, no `application/`) its JWTs may carry as a
   * `subject_token` or `actor_token`; a JWT without `typ` is accepted too.
   */
  readonly exchangeTyps: ReadonlySet<string>;
  /** Maps one of its subjects to a local user id (default: its `sub`). */
  readonly userId: (
    claims: Readonly<Record<string, unknown>>,
    client: ClientRecord,
  ) => Awaitable<string | null>;
}
