import {
  type FetchFunction,
  isGatehouseClientError,
  localStorageTokenStore,
  memoryTokenStore,
  type TokenSet,
} from '@gatehousejs/client';
import { describe, expect, it } from 'vitest';
import { basic, post } from '../../core/test/fixtures';
import { harness, RESOURCE_PATH, signIn } from '../test/support';

/**
 * A fetch that holds back the token endpoint's answer to the next refresh until `release()`;
 * `arrived` resolves once that answer is in hand (the refresh is in flight, the server has answered).
 */
function holdNextRefresh(h: Awaited<ReturnType<typeof harness>>) {
  let armed = false;
  let release = () => {};
  let markArrived = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const arrived = new Promise<void>((resolve) => {
    markArrived = resolve;
  });
  const fetch: FetchFunction = async (input, init) => {
    const request = new Request(input, init);
    const isRefresh =
      new URL(request.url).pathname.endsWith('/oauth2/v1/token') &&
      new URLSearchParams(await request.clone().text()).get('grant_type') === 'refresh_token';
    const response = await h.fetch(request);
    if (!armed || !isRefresh) return response;
    armed = false;
    markArrived();
    await released;
    return response;
  };
  return {
    fetch,
    arm: () => {
      armed = true;
    },
    arrived,
    release,
  };
}

describe('refresh races with sign-out and other writers', () => {
  it('logout while a refresh is in flight: the store stays empty and the refresh throws no_token', async () => {
    const h = await harness();
    const hold = holdNextRefresh(h);
    const client = h.client({ fetch: hold.fetch });
    await signIn(h, client);
    hold.arm();
    const refreshing = client.refresh().catch((e: unknown) => e);
    await hold.arrived;
    await client.logout();
    expect(await client.getTokens()).toBeNull();
    hold.release();
    const error = await refreshing;
    expect(isGatehouseClientError(error, 'no_token')).toBe(true);
    expect(await client.getTokens()).toBeNull();
  });

  it('a sign-out elsewhere (store cleared by another tab) during a refresh is not undone', async () => {
    const h = await harness();
    const hold = holdNextRefresh(h);
    const store = memoryTokenStore();
    const tab = h.client({ fetch: hold.fetch, tokenStore: store });
    await signIn(h, tab);
    h.clock.advance(3601);
    hold.arm();
    const fetching = tab.fetch(RESOURCE_PATH).catch((e: unknown) => e);
    await hold.arrived;
    await store.set(null); // another tab's logout, sharing the store
    hold.release();
    expect(isGatehouseClientError(await fetching, 'no_token')).toBe(true);
    expect(await tab.getTokens()).toBeNull();
  });

  it('a rejected refresh does not clear a token set that someone else stored meanwhile', async () => {
    const h = await harness();
    const hold = holdNextRefresh(h);
    const store = memoryTokenStore();
    const client = h.client({ fetch: hold.fetch, tokenStore: store });
    const tokens = await signIn(h, client);
    await h.gatehouse.fetch(
      post(
        '/oauth2/v1/revoke',
        { token: tokens.refreshToken ?? '' },
        { Authorization: basic('demo-client', 'demo-secret') },
      ),
    );
    h.clock.advance(3601);
    hold.arm();
    const fetching = client.fetch(RESOURCE_PATH).catch((e: unknown) => e);
    await hold.arrived;
    // A new sign-in in another tab (or a handleCallback) stores a fresh set during the round trip.
    const other = h.client({ tokenStore: store });
    const fresh: TokenSet = await signIn(h, other);
    hold.release();
    const error = await fetching;
    expect(isGatehouseClientError(error, 'refresh_failed')).toBe(true);
    expect(error).toMatchObject({ error: 'invalid_grant', status: 400 });
    expect(await store.get()).toEqual(fresh);
  });
});

describe('refresh skew with short-lived access tokens', () => {
  it('caps the skew at half the lifetime: a 20 s token is not refreshed before every request', async () => {
    const h = await harness({ accessTokenTtl: 20 });
    const client = h.client(); // default 30 s skew
    const tokens = await signIn(h, client);
    expect(tokens.expiresAt).toBe(Math.floor(h.clock.now() / 1000) + 20);
    for (let i = 0; i < 5; i++) expect((await client.fetch(RESOURCE_PATH)).status).toBe(200);
    expect(h.tokenCalls('refresh_token')).toHaveLength(0);
    h.clock.advance(9);
    await client.fetch(RESOURCE_PATH);
    expect(h.tokenCalls('refresh_token')).toHaveLength(0);
    h.clock.advance(2); // 11 s of 20: past half the lifetime
    expect((await client.fetch(RESOURCE_PATH)).status).toBe(200);
    expect(h.tokenCalls('refresh_token')).toHaveLength(1);
    // The refreshed token gets the same cap: no refresh on the next requests.
    for (let i = 0; i < 5; i++) await client.fetch(RESOURCE_PATH);
    expect(h.tokenCalls('refresh_token')).toHaveLength(1);
  });

  it('a lifetime survives a localStorage-style round trip through parseTokenSet', async () => {
    const h = await harness({ accessTokenTtl: 20 });
    const raw = new Map<string, string>();
    const store = localStorageTokenStore('k', {
      getItem: (key) => raw.get(key) ?? null,
      setItem: (key, value) => void raw.set(key, value),
      removeItem: (key) => void raw.delete(key),
    });
    const client = h.client({ tokenStore: store });
    await signIn(h, client);
    for (let i = 0; i < 3; i++) await client.fetch(RESOURCE_PATH);
    expect(h.tokenCalls('refresh_token')).toHaveLength(0);
  });
});
