import { clientRecordProblems } from '../records/client-record.js';
import { userRecordProblems } from '../records/user-record.js';
import type { ClientStore, UserLookup, UserStore } from '../storage/types.js';
import type { ConformanceTestApi } from './conformance-api.js';
import { freshId } from './records.js';
import { optionalCase } from './skip.js';

/** The host's user store under test, with a user it holds. */
export interface UserStoreConformanceTarget {
  /** Shown in the test names. */
  readonly name: string;
  /** The store (a `UserLookup` has no `verifyPassword`: those cases are skipped, with the reason). */
  readonly store: UserStore | UserLookup;
  /** A user the store holds; `password` is theirs (without it the password cases are skipped). */
  readonly user: { readonly id: string; readonly username: string; readonly password?: string };
  /**
   * Optional: how many password verifications the store's hasher or verifier has run so far (wrap
   * the `verify` of `passwordUserStore`, or the `hasher` of `memoryUserStore`, with a counter).
   * With it, the kit checks that an unknown username costs as many verifications as a wrong
   * password (the timing rule of `UserStore.verifyPassword`); without it that case is skipped.
   */
  verifications?(): number;
}

/** The host's client store under test, with the ids of clients it holds. */
export interface ClientStoreConformanceTarget {
  /** Shown in the test names. */
  readonly name: string;
  readonly store: ClientStore;
  /** Ids of clients the store holds (at least one). */
  readonly clientIds: readonly string[];
}

/** Fields a user record must never carry out of the store: the stored credential. */
const SECRET_FIELDS = ['passwordHash', 'password_hash', 'password', 'hash'];

/**
 * Registers the conformance cases of a host's {@link UserStore}: records that pass the checks
 * Gatehouse applies where they enter (`records/user-record.ts`), `null` for unknown users, ids and
 * usernames, a wrong password refused, no password hash handed out, and (given a verification
 * counter) an unknown username checked against a dummy hash like a wrong password, so timing does
 * not tell which usernames exist. Never by measuring time: by counting verifications.
 *
 * @example
 * ```ts
 * runUserStoreConformance({ name: 'users', store: myUsers, user: { id: 'u1', username: 'demo', password: 'pw' } },
 *   { describe, it, expect });
 * ```
 */
export function runUserStoreConformance(target: UserStoreConformanceTarget, api: ConformanceTestApi): void {
  const { describe, it, expect } = api;
  const { store, user } = target;
  const passwordCheck = (skip: (reason: string) => never) => {
    if (!('verifyPassword' in store) || typeof store.verifyPassword !== 'function')
      return skip('the store has no verifyPassword (a UserLookup: sign-in is the host’s)');
    if (user.password === undefined) return skip('the target gave no password of its user');
    return { verifyPassword: store.verifyPassword.bind(store), password: user.password };
  };

  describe(`user store conformance: ${target.name}`, () => {
    it('finds the user by id, as a record Gatehouse accepts', async () => {
      const record = await store.findUser(user.id);
      expect(userRecordProblems(record, 'findUser', user.id)).toEqual([]);
      expect(SECRET_FIELDS.filter((field) => field in (record as object))).toEqual([]);
    });

    it('answers null for an unknown user id', async () => {
      expect(await store.findUser(freshId('no-such-user'))).toBeNull();
    });

    optionalCase(api, 'verifies the right password, returning the user without its hash', async (skip) => {
      const { verifyPassword, password } = passwordCheck(skip);
      const record = await verifyPassword(user.username, password);
      expect(userRecordProblems(record, 'verifyPassword', user.id)).toEqual([]);
      expect(SECRET_FIELDS.filter((field) => field in (record as object))).toEqual([]);
    });

    optionalCase(api, 'refuses a wrong password and an unknown username alike (null)', async (skip) => {
      const { verifyPassword, password } = passwordCheck(skip);
      expect(await verifyPassword(user.username, `${password}-wrong`)).toBeNull();
      expect(await verifyPassword(user.username, '')).toBeNull();
      expect(await verifyPassword(freshId('no-such-username'), password)).toBeNull();
    });

    optionalCase(
      api,
      'checks an unknown username against a dummy hash: as many verifications as a wrong password',
      async (skip) => {
        const { verifyPassword, password } = passwordCheck(skip);
        const count = target.verifications;
        if (typeof count !== 'function')
          return skip('the target gave no verifications() counter (wrap the store’s verifier to count)');
        const before = count();
        await verifyPassword(user.username, `${password}-wrong`);
        const wrongPassword = count() - before;
        await verifyPassword(freshId('no-such-username'), password);
        const unknownUser = count() - before - wrongPassword;
        expect(wrongPassword > 0).toBe(true);
        expect(unknownUser).toBe(wrongPassword);
      },
    );
  });
}

/**
 * Registers the conformance cases of a host's {@link ClientStore}: each given client's record
 * passes the checks Gatehouse applies where it enters (`records/client-record.ts`: type, secret
 * hash, redirect URIs, grant types, …), an unknown id (or one differing only in case or spaces:
 * client ids are compared exactly, RFC 6749 §2.2) is `null`, and the optional `isOriginAllowed`
 * answers only the registered origins (skipped with the reason when the store has none).
 */
export function runClientStoreConformance(
  target: ClientStoreConformanceTarget,
  api: ConformanceTestApi,
): void {
  const { describe, it, expect } = api;
  const { store, clientIds } = target;

  describe(`client store conformance: ${target.name}`, () => {
    it('finds each client by its id, as a record Gatehouse accepts', async () => {
      expect(clientIds.length > 0).toBe(true);
      for (const clientId of clientIds) {
        expect({
          clientId,
          problems: clientRecordProblems(await store.findClient(clientId), clientId),
        }).toEqual({
          clientId,
          problems: [],
        });
      }
    });

    it('answers null for an unknown id, and for ids that differ only in case or spaces', async () => {
      expect(await store.findClient(freshId('no-such-client'))).toBeNull();
      for (const clientId of clientIds) {
        for (const variant of [
          clientId.toUpperCase(),
          clientId.toLowerCase(),
          ` ${clientId}`,
          `${clientId} `,
        ]) {
          if (variant !== clientId) expect(await store.findClient(variant)).toBeNull();
        }
      }
    });

    optionalCase(api, 'allows exactly the origins its clients registered', async (skip) => {
      if (typeof store.isOriginAllowed !== 'function')
        return skip('the store has no isOriginAllowed (optional: registrations then add no CORS origins)');
      const origins: string[] = [];
      for (const clientId of clientIds)
        origins.push(...((await store.findClient(clientId))?.allowedOrigins ?? []));
      for (const origin of origins) expect(await store.isOriginAllowed(origin)).toBe(true);
      expect(await store.isOriginAllowed(`https://${freshId('origin')}.invalid`)).toBe(false);
      for (const origin of origins) expect(await store.isOriginAllowed(`${origin}/`)).toBe(false);
    });
  });
}
