import {
  isGatehouseClientError,
  type LockManagerLike,
  memoryTokenStore,
  type TokenSet,
  type TokenStore,
} from '@gatehousejs/client';
import { describe, expect, it } from 'vitest';
import { basic, post } from '../../core/test/fixtures';
import { ALWAYS_REFUSED_PATH, harness, RESOURCE_PATH, signIn } from '../test/support';

/** An in-process stand-in for `navigator.locks`: one holder per name, others queue (FIFO). */
function fakeLocks(withQuery = false): LockManagerLike & { grants: number } {
  const tails = new Map<string, Promise<unknown>>();
  const held = new Set<string>();
  const manager = {
    grants: 0,
    ...(withQuery ? { query: async () => ({ held: [...held].map((name) => ({ name })) }) } : {}),
    request<T>(name: string, callback: () => Promise<T>): Promise<T> {
      const previous = tails.get(name) ?? Promise.resolve();
      const result = previous.then(() => {
        manager.grants += 1;
        held.add(name);
        return callback().finally(() => held.delete(name));
      });
      tails.set(
        name,
        result.catch(() => undefined),
      );
      return result;
    },
  };
  return manager;
}

describe('automatic refresh', () => {
  it('refreshes an expired access token before the request and rotates the refresh token', async () => {
    const h = await harness();
    const client = h.client();
    const first = await signIn(h, client);
    h.clock.advance(3601);
    const response = await client.fetch(RESOURCE_PATH);
    expect(response.status).toBe(200);
    const second = await client.getTokens();
    expect(h.tokenCalls('refresh_token')).toHaveLength(1);
    expect(second?.accessToken).not.toBe(first.accessToken);
    expect(second?.refreshToken).not.toBe(first.refreshToken);
    expect(second?.expiresAt).toBe(Math.floor(h.clock.now() / 1000) + 3600);
    expect(h.seen.at(-1)?.authorization).toBe(`Bearer ${second?.accessToken}`);
  });

  it('refreshes a token that expires within the skew, and not one that does not', async () => {
    const h = await harness();
    const client = h.client({ autoRefresh: { skewSeconds: 60 } });
    await signIn(h, client);
    h.clock.advance(3600 - 61);
    await client.fetch(RESOURCE_PATH);
    expect(h.tokenCalls('refresh_token')).toHaveLength(0);
    h.clock.advance(2);
    await client.fetch(RESOURCE_PATH);
    expect(h.tokenCalls('refresh_token')).toHaveLength(1);
  });

  it('shares one refresh between 50 concurrent requests with an expired token', async () => {
    const h = await harness();
    const client = h.client();
    await signIn(h, client);
    h.clock.advance(7200);
    const responses = await Promise.all(Array.from({ length: 50 }, () => client.fetch(RESOURCE_PATH)));
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(200));
    expect(h.tokenCalls('refresh_token')).toHaveLength(1);
    const { accessToken } = (await client.getTokens()) ?? {};
    expect(
      h.seen
        .filter((r) => r.url.pathname === RESOURCE_PATH)
        .every((r) => r.authorization === `Bearer ${accessToken}`),
    ).toBe(true);
  });

  it('with Web Locks, two tabs sharing a store refresh once: the second reads the first one’s tokens inside the lock', async () => {
    const h = await harness();
    const store = memoryTokenStore();
    const locks = fakeLocks();
    const tabA = h.client({ tokenStore: store, locks });
    const tabB = h.client({ tokenStore: store, locks });
    await signIn(h, tabA);
    h.clock.advance(3601);
    const [a, b] = await Promise.all([tabA.fetch(RESOURCE_PATH), tabB.fetch(RESOURCE_PATH)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(locks.grants).toBe(2);
    expect(h.tokenCalls('refresh_token')).toHaveLength(1);
  });

  it('with Web Locks, a tab whose store copy lags behind waits for the other tab’s tokens instead of reusing the rotated refresh token', async () => {
    const h = await harness();
    // Like localStorage across Chromium renderer processes: tab B sees tab A's writes only a task
    // later, possibly after tab A has released the lock.
    let shared: TokenSet | null = null;
    let viewB: TokenSet | null = null;
    const storeA: TokenStore = {
      get: () => shared,
      set(tokens) {
        shared = tokens;
        setTimeout(() => {
          viewB = tokens;
        }, 0);
      },
    };
    const storeB: TokenStore = { get: () => viewB, set: (tokens) => storeA.set(tokens) };
    const locks = fakeLocks(true);
    const tabA = h.client({ tokenStore: storeA, locks });
    const tabB = h.client({ tokenStore: storeB, locks });
    await signIn(h, tabA);
    await new Promise((resolve) => setTimeout(resolve, 0));
    h.clock.advance(3601);
    const [a, b] = await Promise.all([tabA.fetch(RESOURCE_PATH), tabB.fetch(RESOURCE_PATH)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(h.tokenCalls('refresh_token')).toHaveLength(1);
    expect(viewB).toEqual(shared);
  });

  it('retries once with a refreshed token after a 401 invalid_token', async () => {
    const h = await harness();
    const client = h.client();
    const tokens = await signIn(h, client);
    // The access token is revoked at the server while it has not expired yet.
    const revoked = await h.gatehouse.fetch(
      post(
        '/oauth2/v1/revoke',
        { token: tokens.accessToken },
        { Authorization: basic('demo-client', 'demo-secret') },
      ),
    );
    expect(revoked.status).toBe(200);
    const response = await client.fetch(RESOURCE_PATH, { method: 'POST', body: 'payload' });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ scheme: 'bearer', body: 'payload' });
    const attempts = h.seen.filter((r) => r.url.pathname === RESOURCE_PATH);
    expect(attempts.map((r) => r.authorization)).toEqual([
      `Bearer ${tokens.accessToken}`,
      `Bearer ${(await client.getTokens())?.accessToken}`,
    ]);
    expect(h.tokenCalls('refresh_token')).toHaveLength(1);
  });

  it('retries only once: a second 401 is returned to the caller', async () => {
    const h = await harness();
    const client = h.client();
    await signIn(h, client);
    const response = await client.fetch(ALWAYS_REFUSED_PATH);
    expect(response.status).toBe(401);
    expect(h.seen.filter((r) => r.url.pathname === ALWAYS_REFUSED_PATH)).toHaveLength(2);
    expect(h.tokenCalls('refresh_token')).toHaveLength(1);
  });

  it('clears the store and throws refresh_failed when the server rejects the refresh token', async () => {
    const h = await harness();
    const client = h.client();
    const tokens = await signIn(h, client);
    await h.gatehouse.fetch(
      post(
        '/oauth2/v1/revoke',
        { token: tokens.refreshToken ?? '' },
        { Authorization: basic('demo-client', 'demo-secret') },
      ),
    );
    h.clock.advance(3601);
    const error = await client.fetch(RESOURCE_PATH).catch((e: unknown) => e);
    expect(isGatehouseClientError(error, 'refresh_failed')).toBe(true);
    expect(error).toMatchObject({ error: 'invalid_grant', status: 400 });
    expect(await client.getTokens()).toBeNull();
    expect(h.seen.filter((r) => r.url.pathname === RESOURCE_PATH)).toHaveLength(0);
  });

  it('keeps the tokens when the refresh fails for network reasons', async () => {
    const h = await harness();
    let offline = false;
    const client = h.client({
      fetch: (input, init) =>
        offline ? Promise.reject(new TypeError('fetch failed')) : h.fetch(input, init),
    });
    const tokens = await signIn(h, client);
    h.clock.advance(3601);
    offline = true;
    const error = await client.fetch(RESOURCE_PATH).catch((e: unknown) => e);
    expect(isGatehouseClientError(error, 'network_error')).toBe(true);
    expect(await client.getTokens()).toEqual(tokens);
  });

  it('with autoRefresh off, sends the expired token as it is', async () => {
    const h = await harness();
    const client = h.client({ autoRefresh: false });
    await signIn(h, client);
    h.clock.advance(3600 + 600); // well past the server's clock tolerance
    const response = await client.fetch(RESOURCE_PATH);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/invalid_token/);
    expect(h.tokenCalls('refresh_token')).toHaveLength(0);
  });

  it('refresh() rotates on demand; no_refresh_token and no_token are typed', async () => {
    const h = await harness();
    const client = h.client();
    expect(isGatehouseClientError(await client.refresh().catch((e: unknown) => e), 'no_token')).toBe(true);
    const first = await signIn(h, client);
    const second = await client.refresh();
    expect(second.refreshToken).not.toBe(first.refreshToken);
    const noRefresh = h.client({ tokenStore: memoryTokenStore({ accessToken: 'a', expiresAt: 0 }) });
    expect(
      isGatehouseClientError(await noRefresh.refresh().catch((e: unknown) => e), 'no_refresh_token'),
    ).toBe(true);
  });
});
