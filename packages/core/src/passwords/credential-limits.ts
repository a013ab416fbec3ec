/**
 * The bounds of the credentials a password login accepts (login form, Auth API, `Authorization:
 * Basic` headers), checked before anything is counted, stored or hashed: whatever an
 * unauthenticated client sends, the work and the state it causes stay bounded.
 *
 * Lengths are in UTF-16 code units (JavaScript's `string.length`), checked on the text as received,
 * before any normalisation. That bounds the normalisation too: NFKC expands one code unit to at
 * most 18 (U+FDFA), so a username within the limit normalises to at most 4,608 code units.
 *
 * Hosts should refuse the same lengths when users choose a username or password, so that every
 * account can log in: a longer one can never match here.
 */
export const CREDENTIAL_LIMITS = {
  /** Longest username, in UTF-16 code units. */
  maxUsernameLength: 256,
  /** Longest password, in UTF-16 code units (far above any passphrase; bcrypt uses 72 bytes). */
  maxPasswordLength: 1024,
} as const;

/** Whether `username` and `password` are within {@link CREDENTIAL_LIMITS}. */
export function withinCredentialLimits(username: string, password: string): boolean {
  return (
    username.length <= CREDENTIAL_LIMITS.maxUsernameLength &&
    password.length <= CREDENTIAL_LIMITS.maxPasswordLength
  );
}

/**
 * The username as events and re-rendered forms show it: cut to the limit, so that an over-long
 * one reaches neither a log line nor a page in full.
 */
export function shownUsername(username: string): string {
  return username.length <= CREDENTIAL_LIMITS.maxUsernameLength
    ? username
    : username.slice(0, CREDENTIAL_LIMITS.maxUsernameLength);
}
