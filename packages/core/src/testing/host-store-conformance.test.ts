import {
  type ClientStore,
  memoryClientStore,
  memoryUserStore,
  type PasswordHasher,
  passwordUserStore,
  type UserStore,
} from '@gatehousejs/core';
import {
  type ClientStoreConformanceTarget,
  runClientStoreConformance,
  runUserStoreConformance,
  type UserStoreConformanceTarget,
} from '@gatehousejs/core/testing';
import { describe, expect, it } from 'vitest';
import { testClients, testHasher } from '../../test/fixtures';

/** `testHasher`, counting its verifications (what the timing case compares). */
function countingHasher(): { hasher: PasswordHasher; count: () => number } {
  let verifications = 0;
  return {
    hasher: {
      hash: (password) => testHasher.hash(password),
      verify(password, encoded) {
        verifications++;
        return testHasher.verify(password, encoded);
      },
    },
    count: () => verifications,
  };
}

const DEMO = { id: 'user-1', username: 'demo', password: 'demo-password' };
const { hasher, count } = countingHasher();
const users = memoryUserStore(
  [{ id: DEMO.id, username: DEMO.username, passwordHash: await testHasher.hash(DEMO.password) }],
  { hasher },
);

runUserStoreConformance(
  { name: 'memoryUserStore', store: users, user: DEMO, verifications: count },
  { describe, it, expect },
);
runClientStoreConformance(
  {
    name: 'memoryClientStore',
    store: memoryClientStore(await testClients()),
    clientIds: (await testClients()).map((c) => c.id),
  },
  { describe, it, expect },
);

/** Runs the cases outside vitest: the names of those failed and those skipped, with reasons. */
async function outcome(register: (api: Parameters<typeof runUserStoreConformance>[1]) => void) {
  const cases: { name: string; body: (context?: { skip(note?: string): void }) => Promise<void> }[] = [];
  register({ describe: (_name, body) => body(), it: (name, body) => cases.push({ name, body }), expect });
  const failed: string[] = [];
  const skipped: Record<string, string> = {};
  class Skipped extends Error {}
  for (const { name, body } of cases) {
    await body({
      skip(note) {
        throw new Skipped(note);
      },
    }).catch((error: unknown) => {
      if (error instanceof Skipped) skipped[name] = error.message;
      else failed.push(name);
    });
  }
  return { failed, skipped };
}

const userOutcome = (target: UserStoreConformanceTarget) =>
  outcome((api) => runUserStoreConformance(target, api));
const clientOutcome = (target: ClientStoreConformanceTarget) =>
  outcome((api) => runClientStoreConformance(target, api));

describe('the host store conformance cases', () => {
  it('report the password cases of a lookup-only store, and the timing case without a counter, as skipped', async () => {
    const lookup = { findUser: (id: string) => users.findUser(id) };
    expect(await userOutcome({ name: 'lookup', store: lookup, user: DEMO })).toEqual({
      failed: [],
      skipped: {
        'verifies the right password, returning the user without its hash':
          'the store has no verifyPassword (a UserLookup: sign-in is the host’s)',
        'refuses a wrong password and an unknown username alike (null)':
          'the store has no verifyPassword (a UserLookup: sign-in is the host’s)',
        'checks an unknown username against a dummy hash: as many verifications as a wrong password':
          'the store has no verifyPassword (a UserLookup: sign-in is the host’s)',
      },
    });
    expect((await userOutcome({ name: 'uncounted', store: users, user: DEMO })).skipped).toEqual({
      'checks an unknown username against a dummy hash: as many verifications as a wrong password':
        'the target gave no verifications() counter (wrap the store’s verifier to count)',
    });
  });

  it('fail a store that answers unknown usernames at once, skipping the hash check', async () => {
    const { hasher: counted, count: verifications } = countingHasher();
    const stored = await testHasher.hash(DEMO.password);
    const hasty: UserStore = {
      findUser: (id) => users.findUser(id),
      async verifyPassword(username, password) {
        if (username !== DEMO.username) return null; // no dummy verification: timing tells
        return (await counted.verify(password, stored)) ? { id: DEMO.id, username } : null;
      },
    };
    expect((await userOutcome({ name: 'hasty', store: hasty, user: DEMO, verifications })).failed).toEqual([
      'checks an unknown username against a dummy hash: as many verifications as a wrong password',
    ]);
    // passwordUserStore has the rule built in.
    const { hasher: built, count: builtCount } = countingHasher();
    const helper = passwordUserStore({
      findByUsername: async (username) =>
        username === DEMO.username ? { id: DEMO.id, username, passwordHash: stored } : null,
      findUser: (id) => users.findUser(id),
      verify: built,
    });
    expect(
      (await userOutcome({ name: 'helper', store: helper, user: DEMO, verifications: builtCount })).failed,
    ).toEqual([]);
  });

  it('fail a store that hands out the hash, a numeric id, or a user for an unknown id', async () => {
    const leaky: UserStore = {
      findUser: async (id) => ({ id: id === DEMO.id ? 1 : 2, passwordHash: 'x' }) as never,
      verifyPassword: async () => ({ id: DEMO.id, passwordHash: 'x' }) as never,
    };
    expect((await userOutcome({ name: 'leaky', store: leaky, user: DEMO })).failed).toEqual([
      'finds the user by id, as a record Gatehouse accepts',
      'answers null for an unknown user id',
      'verifies the right password, returning the user without its hash',
      'refuses a wrong password and an unknown username alike (null)',
    ]);
  });

  it('fail a client store with unusable records, case-insensitive ids, or any origin allowed', async () => {
    const clients = await testClients();
    const confidential = clients.find((client) => client.type === 'confidential')!;
    const sloppy: ClientStore = {
      async findClient(clientId) {
        const found = clients.find((client) => client.id.toLowerCase() === clientId.trim().toLowerCase());
        return found === confidential ? { ...found, secretHash: undefined } : (found ?? null);
      },
      isOriginAllowed: async () => true,
    };
    expect(
      (await clientOutcome({ name: 'sloppy', store: sloppy, clientIds: clients.map((client) => client.id) }))
        .failed,
    ).toEqual([
      'finds each client by its id, as a record Gatehouse accepts',
      'answers null for an unknown id, and for ids that differ only in case or spaces',
      'allows exactly the origins its clients registered',
    ]);
    const { isOriginAllowed: _, ...withoutOrigins } = memoryClientStore(clients);
    expect(
      await clientOutcome({ name: 'no origins', store: withoutOrigins, clientIds: [clients[0]!.id] }),
    ).toEqual({
      failed: [],
      skipped: {
        'allows exactly the origins its clients registered':
          'the store has no isOriginAllowed (optional: registrations then add no CORS origins)',
      },
    });
  });
});
