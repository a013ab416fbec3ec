import { ConfigurationError } from '../errors.js';
import type { Logger } from '../events.js';
import { RecordProblems, userNamed } from '../records/record-problems.js';
import type { UserRecord, UserStore } from '../storage/types.js';
import type { PasswordHasher } from './password-hasher.js';

/** A user as the host's database has it: the {@link UserRecord} and the stored password hash. */
export interface PasswordUser extends UserRecord {
  /** The hash the host stores (bcrypt `$2b$…`, argon2 `$argon2id$…`, `scrypt$…`, `pbkdf2-sha256$…`). */
  readonly passwordHash: string;
}

/**
 * Checks a password against a stored hash: `(password, hash) => boolean`, e.g.
 * `(password, hash) => bcrypt.compare(password, hash)` (bcrypt, bcryptjs) or
 * `(password, hash) => argon2.verify(hash, password)` (argon2; note its argument order).
 */
export type PasswordVerifier = (password: string, hash: string) => Promise<boolean> | boolean;

/** Options of {@link passwordUserStore}. */
export interface PasswordUserStoreOptions {
  /** The user of this username (as typed at login) with their password hash, or `null`. */
  findByUsername(username: string): Promise<PasswordUser | null>;
  /** The user of this id (the `sub` claim), or `null`; see `UserStore.findUser`. */
  findUser(userId: string): Promise<UserRecord | null>;
  /**
   * How stored hashes are checked: a {@link PasswordHasher} (`pbkdf2Hasher()`, or `scryptHasher()`
   * of `@gatehousejs/core/node`), or a {@link PasswordVerifier} function for a library the host
   * already uses (bcrypt, argon2), so the core needs no dependency of its own on it. A verifier
   * that throws (a malformed stored hash) counts as a wrong password, and is logged.
   */
  readonly verify: PasswordHasher | PasswordVerifier;
  /**
   * A hash of any password, made like the stored ones (same algorithm and cost, e.g.
   * `bcrypt.hashSync('dummy', 12)`): unknown usernames are verified against it so that they take
   * as long as a wrong password. Required with a verifier function; with a {@link PasswordHasher}
   * it defaults to one the hasher makes on first use.
   */
  readonly dummyHash?: string;
  /**
   * Where a stored hash the verifier cannot read (it threw: a malformed or plain-text hash) is
   * reported, once per user. Default `console`.
   */
  readonly logger?: Logger;
}

/**
 * A {@link UserStore} over the host's own user table, with the timing rule built in: an unknown
 * username costs one verification against {@link PasswordUserStoreOptions.dummyHash}, exactly as a
 * wrong password costs one against the user's hash, so response times do not tell which usernames
 * exist (OWASP Authentication Cheat Sheet, "Authentication Responses"). The returned user never
 * carries the hash.
 *
 * ```ts
 * import bcrypt from 'bcryptjs';
 * users: passwordUserStore({
 *   findByUsername: (username) => db.users.findOne({ username }),
 *   findUser: (id) => db.users.findOne({ id }),
 *   verify: (password, hash) => bcrypt.compare(password, hash),
 *   dummyHash: bcrypt.hashSync('dummy', 12), // the cost of the stored hashes
 * })
 * ```
 */
export function passwordUserStore(options: PasswordUserStoreOptions): UserStore {
  if (!options || typeof options.findByUsername !== 'function' || typeof options.findUser !== 'function')
    throw new ConfigurationError('passwordUserStore: findByUsername and findUser functions are required.', {
      code: 'ERR_CONFIG_MISSING_OPTION',
      option: 'passwordUserStore.findByUsername',
    });
  const { verify } = options;
  let check: (password: string, hash: string) => Promise<boolean>;
  let dummyHash: () => Promise<string>;
  if (typeof verify === 'function') {
    const given = options.dummyHash;
    if (typeof given !== 'string' || given === '')
      throw new ConfigurationError(
        'passwordUserStore.dummyHash: required with a verify function: a hash made like the stored ones (e.g. bcrypt.hashSync("dummy", 12)), checked for unknown usernames so they take as long as known ones.',
        { code: 'ERR_CONFIG_MISSING_OPTION', option: 'passwordUserStore.dummyHash' },
      );
    check = async (password, hash) => (await verify(password, hash)) === true;
    dummyHash = async () => given;
  } else if (verify && typeof verify.verify === 'function' && typeof verify.hash === 'function') {
    check = (password, hash) => verify.verify(password, hash);
    let made: Promise<string> | undefined;
    dummyHash = () => {
      made ??=
        options.dummyHash !== undefined
          ? Promise.resolve(options.dummyHash)
          : verify.hash('gatehouse-dummy-password');
      return made;
    };
  } else {
    throw new ConfigurationError(
      'passwordUserStore.verify: expected a PasswordHasher (pbkdf2Hasher(), scryptHasher()) or a function (password, hash) => boolean.',
      { code: 'ERR_CONFIG_INVALID_OPTION', option: 'passwordUserStore.verify' },
    );
  }
  const problems = new RecordProblems(options.logger ?? console);
  /** Whether `password` matches `hash`; a verifier that throws is a mismatch, reported for `who`. */
  const matches = async (password: string, hash: string, who: string, field: string): Promise<boolean> => {
    try {
      return await check(password, hash);
    } catch {
      problems.report(who, 'passwordUserStore', [
        `${field}: the verify function threw on it (malformed, or not a hash?)`,
      ]);
      return false;
    }
  };
  const againstDummy = async (password: string) =>
    matches(password, await dummyHash(), 'passwordUserStore', 'dummyHash');

  return {
    async verifyPassword(username, password) {
      const user = await options.findByUsername(username);
      if (!user) {
        await againstDummy(password);
        return null;
      }
      const who = userNamed(String(user.id));
      if (typeof user.passwordHash !== 'string' || user.passwordHash === '') {
        // Still one verification, so that a user without a password takes as long as any other.
        problems.report(who, 'passwordUserStore.findByUsername', ['passwordHash: missing']);
        await againstDummy(password);
        return null;
      }
      if (!(await matches(password, user.passwordHash, who, 'passwordHash'))) return null;
      const { passwordHash: _, ...record } = user;
      return record;
    },
    findUser: (userId) => options.findUser(userId),
  };
}
