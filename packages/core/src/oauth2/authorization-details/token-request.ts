import type { Params } from '../../http/form.js';
import type { ClientRecord, RecordExtensions } from '../../storage/types.js';
import { type AuthorizationDetail, authorizationDetailsClaim } from '../../tokens/authorization-details.js';
import { type AuthorizationDetailsService, invalidAuthorizationDetails } from './settings.js';

/*
 * `authorization_details` at the token endpoint (RFC 9396 §6): a grant's details travel in the
 * `ext` of its code and refresh tokens (`authorizationDetails`, carried through every rotation, like
 * the scope), and each token request may ask for some of them (§6.1), never more.
 */

/**
 * The `ext` member a grant's details are kept under (codes, refresh tokens), as their JSON text:
 * engines keep `ext` losslessly, but a text is immune even to a JSON library that cannot tell an
 * empty array from an empty object (Lua's cjson, in the Redis engine's scripts).
 */
export const DETAILS_EXTENSION = 'authorizationDetails';

/** The details a grant holds (its code's or refresh token's `ext`), or `undefined`. */
export function grantedDetails(
  ext: RecordExtensions | undefined,
): readonly AuthorizationDetail[] | undefined {
  const text = ext?.[DETAILS_EXTENSION];
  if (typeof text !== 'string') return undefined;
  try {
    return authorizationDetailsClaim(JSON.parse(text)) ?? undefined;
  } catch {
    return undefined;
  }
}

/** `ext` with the grant's details, for a code (merged with the code's other extensions). */
export function withGrantedDetails(
  ext: RecordExtensions | undefined,
  details: readonly AuthorizationDetail[] | undefined,
): RecordExtensions | undefined {
  if (details === undefined) return ext;
  return { ...ext, [DETAILS_EXTENSION]: JSON.stringify(details) };
}

/**
 * The details of the access token a token request on a grant gets (RFC 9396 §6.1): all the
 * grant's without an `authorization_details` parameter; with one, what it asks, if each detail is
 * within one the grant holds (checked by the type's `covers`), else `invalid_authorization_details`.
 * With the feature off (`service` absent) the parameter is ignored (RFC 6749 §3.1).
 */
export function tokenDetails(
  service: AuthorizationDetailsService | undefined,
  params: Params,
  client: ClientRecord,
  granted: readonly AuthorizationDetail[] | undefined,
): readonly AuthorizationDetail[] | undefined {
  const text = service === undefined ? undefined : params.get('authorization_details');
  if (text === undefined || service === undefined) return granted;
  const requested = service.parse(text, client);
  if (granted === undefined || !service.covers(granted, requested))
    throw invalidAuthorizationDetails(
      'A token request may ask for the authorization details of its grant or fewer, never more (RFC 9396 section 6.1).',
    );
  return requested;
}

/**
 * The details a client acting for itself asks for (RFC 9396 §6, the client credentials grant):
 * checked for the client like at the authorization endpoint (its registered types, each type's
 * validator); `undefined` without the parameter or with the feature off.
 */
export function requestedDetails(
  service: AuthorizationDetailsService | undefined,
  params: Params,
  client: ClientRecord,
): readonly AuthorizationDetail[] | undefined {
  const text = service === undefined ? undefined : params.get('authorization_details');
  return text === undefined || service === undefined ? undefined : service.parse(text, client);
}
