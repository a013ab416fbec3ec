import { markTrusted } from '../storage/guard.js';
import type { UserRecord, UserStore } from '../storage/types.js';
import type { PasswordHasher } from './password-hasher.js';
import { passwordUserStore } from './password-user-store.js';
import { pbkdf2Hasher } from './pbkdf2.js';

/** A user of {@link memoryUserStore}: a {@link UserRecord} plus its password hash. */
export interface MemoryUser extends UserRecord {
  readonly username: string;
  /** Produced by the store's hasher (`await hasher.hash(password)`). */
  readonly passwordHash: string;
}

/** Options of {@link memoryUserStore}. */
export interface MemoryUserStoreOptions {
  /** Verifies `passwordHash`. Default: {@link pbkdf2Hasher} with its default cost. */
  readonly hasher?: PasswordHasher;
}

/**
 * A {@link UserStore} over a fixed list of users, for demos and tests: a {@link passwordUserStore}
 * over two maps, so unknown usernames are verified against a dummy hash and take as long as a
 * wrong password.
 */
export function memoryUserStore(
  users: readonly MemoryUser[],
  options: MemoryUserStoreOptions = {},
): UserStore {
  const byUsername = new Map(users.map((user) => [user.username, user]));
  // The records without their password hashes, made once: the same object on every lookup, so
  // the record check (`records/user-record.ts`) runs once per user, not on every refresh. Frozen,
  // since every caller shares it: one cannot change what the next lookup returns.
  const toRecord = ({ passwordHash: _, ...user }: MemoryUser): UserRecord => Object.freeze(user);
  const byId = new Map(users.map((user) => [user.id, toRecord(user)]));
  return markTrusted(
    passwordUserStore({
      findByUsername: async (username) => byUsername.get(username) ?? null,
      findUser: async (userId) => byId.get(userId) ?? null,
      verify: options.hasher ?? pbkdf2Hasher(),
    }),
  );
}
