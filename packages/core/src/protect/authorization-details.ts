import type { AuthorizationDetail } from '../tokens/authorization-details.js';
import type { Caller } from './types.js';

/**
 * The caller's authorization details of one type (RFC 9396 §9.1), typed as the operation knows
 * that type: e.g. `authorizationDetailsOf<TicketAccess>(caller, 'ticket_access')`. Empty when the
 * token carries none of that type (or none at all, or the caller is a session). The details were
 * checked by the type's validator when they were granted; the type parameter only names their
 * shape.
 */
export function authorizationDetailsOf<T extends AuthorizationDetail = AuthorizationDetail>(
  caller: Pick<Caller, 'authorizationDetails'>,
  type: string,
): readonly T[] {
  return (caller.authorizationDetails ?? []).filter((detail): detail is T => detail.type === type);
}
