/**
 * Hashes and verifies user passwords. Unlike tokens, passwords are low-entropy, so hashers must be
 * deliberately slow and salted. Used by the in-memory user store; hosts with their own `UserStore`
 * may use one too.
 */
export interface PasswordHasher {
  /** A self-describing encoded hash (algorithm, parameters, salt, digest). */
  hash(password: string): Promise<string>;
  /** Whether `password` matches `encoded`, compared in constant time. `false` for malformed input. */
  verify(password: string, encoded: string): Promise<boolean>;
}
