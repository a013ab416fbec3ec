import {
  ConfigurationError,
  createGatehouse,
  type GatehouseStorage,
  memoryClientStore,
  memoryEngine,
  memoryStorage,
  memoryUserStore,
  type StorageEngine,
  withMemoryFallback,
} from '@gatehousejs/core';
import { memoryGrantStore } from '@gatehousejs/core/engine';
import { describe, expect, it } from 'vitest';
import { testKey } from '../../test/fixtures';

async function optionsWith(storage: unknown) {
  return {
    issuer: 'https://auth.example.com',
    keys: [await testKey()],
    clients: memoryClientStore([]),
    users: memoryUserStore([]),
    storage: storage as GatehouseStorage,
  };
}

const create = async (storage: unknown) => createGatehouse(await optionsWith(storage));

/** The message of the ConfigurationError `createGatehouse` throws for `storage`. */
async function refusal(storage: unknown): Promise<string> {
  const error = await create(storage).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ConfigurationError);
  return (error as Error).message;
}

/** Every store of a fresh memory storage but `names`. */
function without(...names: (keyof GatehouseStorage)[]): Partial<GatehouseStorage> {
  const stores: Partial<GatehouseStorage> = { ...memoryStorage() };
  for (const name of names) delete stores[name];
  return stores;
}

describe('storage: no silent fallback to memory', () => {
  it('refuses a partial storage, naming every missing store', async () => {
    expect(await refusal({ grants: memoryGrantStore() })).toBe(
      "storage: missing clients, kv. Give every store (grants, clients, kv), a storage engine, or, to keep the missing ones in this process's memory, withMemoryFallback(stores).",
    );
    expect(await refusal(without('kv'))).toMatch(/^storage: missing kv\. /);
    expect(await refusal(without('grants', 'clients'))).toMatch(/^storage: missing grants, clients\. /);
    expect(await refusal({})).toMatch(/^storage: missing grants, clients, kv\. /);
  });

  it('names the misspelt key next to the store it stands for', async () => {
    const { clients, kv, ...rest } = memoryStorage();
    expect(await refusal({ ...rest, client: clients, KV: kv })).toMatch(
      /^storage: missing clients \(given "client": misspelt\?\), kv \(given "KV": misspelt\?\)\. /,
    );
    const { grants, ...others } = memoryStorage();
    expect(await refusal({ ...others, grant: grants })).toMatch(
      /^storage: missing grants \(given "grant": misspelt\?\)\. /,
    );
  });

  it('refuses a store given as something other than an object', async () => {
    expect(await refusal({ ...memoryStorage(), kv: 'redis://localhost' })).toMatch(/^storage: missing kv\. /);
    expect(await refusal('memory')).toMatch(/^storage: expected a storage engine or an object of stores/);
  });

  it('refuses an engine whose view lacks a store, naming the instance', async () => {
    const partial: StorageEngine = { instance: () => without('kv', 'clients') as GatehouseStorage };
    expect(await refusal(partial)).toMatch(
      /^storage: the engine's view of instance "https:\/\/auth\.example\.com": missing clients, kv\. /,
    );
  });

  it('refuses the stores of host contract v2 rather than ignore them, naming each', async () => {
    const v2 = { ...memoryStorage(), sessions: {}, rateLimits: {} };
    expect(await refusal(v2)).toBe(
      'storage: sessions, rateLimits are no longer stores of their own (host contract v3): Gatehouse keeps sessions, consents, rate limits and replay ids in `kv`. Remove them, and move existing records with the migration of docs/storage.md ("Upgrading from contract v2").',
    );
    expect(() => withMemoryFallback({ grants: memoryGrantStore(), replay: {} } as never)).toThrow(
      /^withMemoryFallback: replay is no longer a store of its own/,
    );
  });

  it('accepts every store, an engine, or no storage at all (memory for this instance alone)', async () => {
    const { clear: _, ...stores } = memoryStorage();
    for (const storage of [stores, memoryStorage(), memoryEngine(), undefined]) {
      const gatehouse = await create(storage);
      await gatehouse.ready();
    }
  });
});

describe('storage: every method of every store, checked at creation', () => {
  /** The ConfigurationError `createGatehouse` throws for `storage`. */
  async function refused(storage: unknown): Promise<ConfigurationError> {
    const error = await create(storage).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ConfigurationError);
    return error as ConfigurationError;
  }

  it('refuses a grant store without isRevoked and redeemCode, naming the store and each method', async () => {
    const { isRevoked: _, redeemCode: __, ...grants } = memoryGrantStore();
    const error = await refused(withMemoryFallback({ grants: grants as never }));
    expect(error).toMatchObject({ code: 'ERR_CONFIG_STORE_METHOD', option: 'storage.grants.redeemCode' });
    expect(error.message).toBe(
      'storage: grants.redeemCode is missing (GrantStore); grants.isRevoked is missing (GrantStore). Every store implements its whole interface (docs/storage.md, "How many methods"); a partial store would fail with a TypeError at its first use.',
    );
  });

  it('checks the client registry and kv too, and an engine’s view, naming the instance', async () => {
    const { increment: _, ...kv } = memoryStorage().kv as unknown as Record<string, unknown>;
    expect(await refused({ ...memoryStorage(), kv })).toMatchObject({
      code: 'ERR_CONFIG_STORE_METHOD',
      option: 'storage.kv.increment',
      message: expect.stringMatching(/^storage: kv\.increment is missing \(KeyValueStore\)\. /),
    });
    const stores = memoryStorage();
    const engine: StorageEngine = {
      instance: () => ({ ...stores, clients: { ...stores.clients, touchClient: 'later' } as never }),
    };
    expect((await refused(engine)).message).toMatch(
      /^storage: the engine's view of instance "https:\/\/auth\.example\.com": clients\.touchClient is a string, not a function \(ClientRegistry\)\. /,
    );
  });

  it('refuses an optional method given as something other than a function, and accepts it left out', async () => {
    const grants = { ...memoryGrantStore(), watchRevocations: true };
    expect(await refused(withMemoryFallback({ grants: grants as never }))).toMatchObject({
      option: 'storage.grants.watchRevocations',
      message: expect.stringContaining(
        'grants.watchRevocations is a boolean, not a function (GrantStore, optional)',
      ),
    });
    const {
      revokeSubject: _,
      subjectRevokedAt: __,
      listUserRefreshTokens: ___,
      watchRevocations: ____,
      ...required
    } = memoryGrantStore();
    await (await create(withMemoryFallback({ grants: required }))).ready();
  });
});

describe('withMemoryFallback', () => {
  it('keeps the given stores and completes the rest in memory, for Gatehouse to use', async () => {
    const grants = memoryGrantStore();
    const storage = withMemoryFallback({ grants });
    expect(storage.grants).toBe(grants);
    for (const name of ['clients', 'kv'] as const) expect(typeof storage[name]).toBe('object');
    const gatehouse = await create(storage);
    await gatehouse.ready();
    // Gatehouse writes to the given grant store: revoking a user leaves the mark there.
    await gatehouse.revokeUser('user-1');
    expect(await grants.subjectRevokedAt!('user-1', Date.now() + 1)).not.toBeNull();
  });

  it('clears the given stores and the memory ones', async () => {
    const given = memoryStorage();
    const { kv: _, ...withoutKv } = given;
    const storage = withMemoryFallback(withoutKv);
    const now = Date.now();
    await storage.kv.set('k', 'v', now + 60_000);
    await given.clients.saveClient({
      client: { id: 'c', type: 'public', redirectUris: [] },
      registeredAt: now,
    });
    await storage.clear();
    expect(await storage.kv.get('k', now)).toBeNull();
    expect(await given.clients.findClient('c', now)).toBeNull();
  });

  it('refuses a misspelt store instead of replacing it with memory, and an engine', () => {
    expect(() => withMemoryFallback({ grant: memoryGrantStore() } as never)).toThrow(
      new ConfigurationError('withMemoryFallback: "grant" is not a store (did you mean "grants"?).', {
        code: 'ERR_CONFIG_UNKNOWN_OPTION',
        option: 'storage',
      }),
    );
    expect(() => withMemoryFallback(memoryEngine() as never)).toThrow(ConfigurationError);
  });
});
