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

/**
 * What granting each scope value reveals, in words for the consent page (Core §5.4 for the standard
 * ones, §11 for `offline_access`). Scopes of the host's API have no entry: the page shows their
 * name, unless `ui.scopeDescriptions` describes them. `@gatehousejs/core/ui` exports it as
 * `BUILT_IN_SCOPE_DESCRIPTIONS`, for a host's own consent page.
 */
export const SCOPE_DESCRIPTIONS: Readonly<Record<string, string>> = Object.freeze({
  openid: 'Know who you are: an identifier of your account',
  profile: 'Your profile: name, username, picture and similar details',
  email: 'Your email address, and whether it is verified',
  address: 'Your postal address',
  phone: 'Your phone number, and whether it is verified',
  offline_access: 'Stay connected: access while you are not signed in',
});
