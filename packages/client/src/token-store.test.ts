import {
  type KeyValueStorage,
  localStorageTokenStore,
  memoryTokenStore,
  type TokenSet,
  type TokenStore,
} from '@gatehousejs/client';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, RESOURCE_PATH, signIn } from '../test/support';

function mapStorage(): KeyValueStorage & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    getItem: (key) => map.get(key) ?? null,
    setItem: (key, value) => void map.set(key, value),
    removeItem: (key) => void map.delete(key),
  };
}

/** A custom store whose methods are async, as the contract allows. */
function asyncStore(): TokenStore & { writes: (TokenSet | null)[] } {
  let current: TokenSet | null = null;
  const writes: (TokenSet | null)[] = [];
  return {
    writes,
    get: async () => current,
    async set(tokens) {
      writes.push(tokens);
      current = tokens;
    },
  };
}

const full: TokenSet = { accessToken: 'at-1', refreshToken: 'rt-1', expiresAt: 1_800_000_000, scope: 'read' };
const minimal: TokenSet = { accessToken: 'at-2', expiresAt: 1_800_000_100 };

describe.each([
  ['memoryTokenStore', () => memoryTokenStore()],
  ['localStorageTokenStore', () => localStorageTokenStore('tokens', mapStorage())],
  ['a custom async store', () => asyncStore()],
])('the token store contract: %s', (_name, make) => {
  it('starts empty, returns what was set, and clears with set(null)', async () => {
    const store = make();
    expect(await store.get()).toBeNull();
    await store.set(full);
    expect(await store.get()).toEqual(full);
    await store.set(minimal);
    expect(await store.get()).toEqual(minimal);
    await store.set(null);
    expect(await store.get()).toBeNull();
  });
});

describe('localStorageTokenStore', () => {
  afterEach(() => {
    delete (globalThis as { localStorage?: unknown }).localStorage;
  });

  it('is shared by every store on the same key, as tabs of one origin share localStorage', () => {
    const storage = mapStorage();
    localStorageTokenStore('k', storage).set(full);
    expect(localStorageTokenStore('k', storage).get()).toEqual(full);
    expect(localStorageTokenStore('other', storage).get()).toBeNull();
  });

  it('removes its key on set(null) and reads anything that is not a token set as null', () => {
    const storage = mapStorage();
    const store = localStorageTokenStore('k', storage);
    store.set(full);
    store.set(null);
    expect(storage.map.has('k')).toBe(false);
    for (const junk of ['not json', '{"accessToken":5,"expiresAt":1}', '{"accessToken":"a"}', 'null', '[]']) {
      storage.map.set('k', junk);
      expect(store.get()).toBeNull();
    }
  });

  it('uses globalThis.localStorage under the default key gatehouse.tokens', () => {
    const storage = mapStorage();
    (globalThis as { localStorage?: unknown }).localStorage = storage;
    localStorageTokenStore().set(minimal);
    expect(JSON.parse(storage.map.get('gatehouse.tokens') ?? 'null')).toEqual(minimal);
  });
});

describe('a client with a custom async store', () => {
  it('stores the token set of a sign-in and uses it as the bearer token', async () => {
    const h = await harness();
    const store = asyncStore();
    const client = h.client({ tokenStore: store });
    const tokens = await signIn(h, client);
    expect(store.writes).toEqual([tokens]);
    const response = await client.fetch(RESOURCE_PATH);
    expect(await response.json()).toMatchObject({ sub: 'user-1', scheme: 'bearer' });
    expect(h.seen.at(-1)?.authorization).toBe(`Bearer ${tokens.accessToken}`);
  });

  it('stores expiresAt in Unix seconds from expires_in', async () => {
    const h = await harness();
    const client = h.client();
    const tokens = await signIn(h, client);
    expect(tokens.expiresAt).toBe(Math.floor(h.clock.now() / 1000) + 3600);
    expect(await client.getTokens()).toEqual(tokens);
  });
});
