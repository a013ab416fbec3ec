import { parseScope } from '../oauth2/scope.js';

/**
 * The standard claims each scope value reveals (OpenID Connect Core §5.4). `openid` itself reveals
 * only `sub`, which is always returned.
 */
export const SCOPE_CLAIMS: Readonly<Record<string, readonly string[]>> = {
  profile: [
    'name',
    'family_name',
    'given_name',
    'middle_name',
    'nickname',
    'preferred_username',
    'profile',
    'picture',
    'website',
    'gender',
    'birthdate',
    'zoneinfo',
    'locale',
    'updated_at',
  ],
  email: ['email', 'email_verified'],
  address: ['address'],
  phone: ['phone_number', 'phone_number_verified'],
};

/** Every claim of {@link SCOPE_CLAIMS}, plus `sub`: discovery's `claims_supported`. */
export const SUPPORTED_CLAIMS: readonly string[] = ['sub', ...Object.values(SCOPE_CLAIMS).flat()];

/**
 * The claims of a user that a granted scope reveals (Core §5.4): of the host's `UserRecord.claims`,
 * only the standard claims of the scope values granted, never others (a host's custom claims are not
 * released through scopes). `sub` is not among them: callers set it from the user id.
 */
export function claimsForScope(
  claims: Readonly<Record<string, unknown>> | undefined,
  scope: string,
): Record<string, unknown> {
  const released: Record<string, unknown> = {};
  if (!claims) return released;
  for (const value of parseScope(scope)) {
    for (const name of SCOPE_CLAIMS[value] ?? []) {
      if (Object.hasOwn(claims, name) && claims[name] !== undefined) released[name] = claims[name];
    }
  }
  return released;
}
