import {
  ConfigurationError,
  type PasswordUser,
  passwordUserStore,
  pbkdf2Hasher,
  type UserRecord,
} from '@gatehousejs/core';
import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import { ISSUER, testInstance, userBasic } from '../../test/fixtures';

// passwordUserStore over a host's own table, with bcrypt from the host (here bcryptjs): the core
// holds no bcrypt code, and unknown usernames cost one verification like a wrong password.

const COST = 4; // bcrypt's minimum: the tests measure calls, not time
const rows: PasswordUser[] = [
  {
    id: 'u-1',
    username: 'ada',
    passwordHash: bcrypt.hashSync('correct horse', COST),
    claims: { name: 'Ada' },
  },
  { id: 'u-2', username: 'bob', passwordHash: 'plain-text-password' },
];

/** The store over `rows`, with every hash bcrypt is asked to compare recorded. */
function bcryptStore(lines: string[] = []) {
  const compared: string[] = [];
  const store = passwordUserStore({
    findByUsername: async (username) => rows.find((row) => row.username === username) ?? null,
    findUser: async (userId) => {
      const row = rows.find((candidate) => candidate.id === userId);
      if (!row) return null;
      const { passwordHash: _, ...user } = row;
      return user satisfies UserRecord;
    },
    verify: (password, hash) => {
      compared.push(hash);
      // As argon2.verify does, refuse what is not a hash of the library's own format.
      if (!hash.startsWith('$2')) throw new Error('Invalid hash');
      return bcrypt.compare(password, hash);
    },
    dummyHash: bcrypt.hashSync('dummy', COST),
    logger: { warn() {}, error: (message: string) => lines.push(message) },
  });
  return { store, compared };
}

async function login(users: ReturnType<typeof bcryptStore>['store'], username: string, password: string) {
  const t = await testInstance({ users });
  return t.gatehouse.fetch(
    new Request(`${ISSUER}/auth/v1/token`, {
      method: 'POST',
      headers: { Authorization: userBasic(username, password) },
    }),
  );
}

describe('passwordUserStore', () => {
  it('signs in with the right password through a host-supplied bcrypt verify, without returning the hash', async () => {
    const { store } = bcryptStore();
    expect(await store.verifyPassword('ada', 'correct horse')).toEqual({
      id: 'u-1',
      username: 'ada',
      claims: { name: 'Ada' },
    });
    const response = await login(store, 'ada', 'correct horse');
    expect(response.status).toBe(200);
  });

  it('verifies an unknown username against the dummy hash, of the same cost, exactly once, and answers as for a wrong password', async () => {
    const { store, compared } = bcryptStore();
    const wrong = await login(store, 'ada', 'wrong');
    const unknown = await login(store, 'nobody', 'wrong');
    expect(unknown.status).toBe(wrong.status);
    expect(await unknown.json()).toEqual(await wrong.json());
    expect(compared).toHaveLength(2);
    expect(compared[0]).toBe(rows[0]!.passwordHash);
    expect(compared[1]).not.toBe(rows[0]!.passwordHash);
    expect(compared[1]!.slice(0, 7)).toBe(compared[0]!.slice(0, 7)); // `$2b$04$`: same algorithm and cost
  });

  it('fails a login whose stored hash the verifier refuses, and logs it once naming the user and field', async () => {
    const lines: string[] = [];
    const { store } = bcryptStore(lines);
    expect(await store.verifyPassword('bob', 'plain-text-password')).toBeNull();
    expect(await store.verifyPassword('bob', 'plain-text-password')).toBeNull();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('user "u-2" is refused');
    expect(lines[0]).toContain('passwordHash: the verify function threw on it');
  });

  it('requires a dummy hash with a verify function, and makes one with a PasswordHasher', async () => {
    const bare = {
      findByUsername: async () => null,
      findUser: async () => null,
      verify: (password: string, hash: string) => bcrypt.compare(password, hash),
    };
    expect(() => passwordUserStore(bare)).toThrow(ConfigurationError);
    expect(() => passwordUserStore(bare)).toThrow(
      expect.objectContaining({ code: 'ERR_CONFIG_MISSING_OPTION', option: 'passwordUserStore.dummyHash' }),
    );
    const hasher = pbkdf2Hasher({ iterations: 1000 });
    const made: string[] = [];
    const store = passwordUserStore({
      ...bare,
      verify: {
        hash: async (password) => {
          made.push(password);
          return hasher.hash(password);
        },
        verify: (password, hash) => hasher.verify(password, hash),
      },
    });
    expect(await store.verifyPassword('nobody', 'x')).toBeNull();
    expect(await store.verifyPassword('nobody', 'y')).toBeNull();
    expect(made).toHaveLength(1); // one dummy hash, made on first use
  });
});
