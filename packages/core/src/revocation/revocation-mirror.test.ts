import { ConfigurationError } from '@gatehousejs/core';
import { type GrantStore, memoryGrantStore, type RevocationListener } from '@gatehousejs/core/engine';
import { describe, expect, it } from 'vitest';
import { ISSUER, testInstance, userBasic } from '../../test/fixtures';

/**
 * A memory grant store with its channel under the test's control: `isRevoked` calls are counted,
 * and `cut()` stops delivery (as a broken connection would) until `restore()` reconnects.
 */
function observedStore(inner: GrantStore = memoryGrantStore()) {
  let asked = 0;
  let cut = false;
  let outer: RevocationListener | undefined;
  const store: GrantStore = {
    ...inner,
    isRevoked(...args) {
      asked++;
      return inner.isRevoked(...args);
    },
    watchRevocations(listener) {
      outer = listener;
      return inner.watchRevocations!({
        connected: () => !cut && listener.connected(),
        revoked: (event) => !cut && listener.revoked(event),
        echoed: (id) => !cut && listener.echoed(id),
        lost: () => listener.lost(),
      });
    },
  };
  return {
    store,
    asked: () => asked,
    cut() {
      cut = true;
      outer!.lost();
    },
    restore() {
      cut = false;
      outer!.connected();
    },
  };
}

async function tokenOf(t: Awaited<ReturnType<typeof testInstance>>): Promise<string> {
  const response = await t.gatehouse.fetch(
    new Request(`${ISSUER}/auth/v1/token`, {
      method: 'POST',
      headers: { Authorization: userBasic('demo', 'demo-password') },
    }),
  );
  return ((await response.json()) as { access_token: string }).access_token;
}

const check = async (t: Awaited<ReturnType<typeof testInstance>>, token: string) => {
  const result = await t.gatehouse.authenticate(
    new Request(`${ISSUER}/api`, { headers: { Authorization: `Bearer ${token}` } }),
    { schemes: ['bearer'] },
  );
  return result.ok ? 200 : result.response.status;
};

/** Checks until the store is no longer asked (the mirror is live), at most `limit` times. */
async function untilMirrorAnswers(
  t: Awaited<ReturnType<typeof testInstance>>,
  token: string,
  asked: () => number,
) {
  for (let i = 0; i < 200; i++) {
    const before = asked();
    expect(await check(t, token)).toBe(200);
    if (asked() === before) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('the mirror never became live');
}

describe('pushed revocations (the revocation mirror)', () => {
  it('asks the store until the mirror caught up, then answers the bearer check without it', async () => {
    const observed = observedStore();
    const t = await testInstance({ storage: { grants: observed.store }, pushedRevocations: true });
    const token = await tokenOf(t);
    expect(await check(t, token)).toBe(200);
    expect(observed.asked()).toBe(1); // the first check subscribes; the mirror is not trusted yet
    await untilMirrorAnswers(t, token, observed.asked);
    const asked = observed.asked();
    for (let i = 0; i < 10; i++) expect(await check(t, token)).toBe(200);
    expect(observed.asked()).toBe(asked);
  });

  it("honours another instance's revocation on the shared store, delivered through the channel", async () => {
    const shared = memoryGrantStore();
    const observed = observedStore(shared);
    const t = await testInstance({ storage: { grants: observed.store }, pushedRevocations: true });
    const token = await tokenOf(t);
    await untilMirrorAnswers(t, token, observed.asked);
    const { jti, exp } = JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as {
      jti: string;
      exp: number;
    };
    // "Another process" writes the revocation directly to the engine.
    await shared.revokeAccessToken(jti, exp * 1000);
    const asked = observed.asked();
    expect(await check(t, token)).toBe(401);
    expect(observed.asked()).toBe(asked); // refused by the mirror itself
  });

  it("honours this instance's own revocation at once, and a user's mark", async () => {
    const observed = observedStore();
    const t = await testInstance({ storage: { grants: observed.store }, pushedRevocations: true });
    const token = await tokenOf(t);
    await untilMirrorAnswers(t, token, observed.asked);
    t.clock.advance(1000);
    await t.gatehouse.revokeUser('user-1');
    expect(await check(t, token)).toBe(401);
    t.clock.advance(1000);
    expect(await check(t, await tokenOf(t))).toBe(200);
  });

  it('falls back to the store while the channel is cut, and misses nothing revoked meanwhile', async () => {
    const shared = memoryGrantStore();
    const observed = observedStore(shared);
    const t = await testInstance({ storage: { grants: observed.store }, pushedRevocations: true });
    const token = await tokenOf(t);
    await untilMirrorAnswers(t, token, observed.asked);

    observed.cut();
    const { jti, exp } = JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as {
      jti: string;
      exp: number;
    };
    await shared.revokeAccessToken(jti, exp * 1000); // not delivered: the channel is cut
    let asked = observed.asked();
    expect(await check(t, token)).toBe(401); // the store was asked
    expect(observed.asked()).toBe(asked + 1);

    observed.restore(); // reconnected: the snapshot brings the revocation the channel missed
    await new Promise((resolve) => setTimeout(resolve, 5));
    for (let i = 0; i < 20; i++) expect(await check(t, token)).toBe(401);
    // Live again: a fresh token passes without the store.
    const fresh = await tokenOf(t);
    await untilMirrorAnswers(t, fresh, observed.asked);
    asked = observed.asked();
    expect(await check(t, token)).toBe(401);
    expect(observed.asked()).toBe(asked);
  });

  it('asks the store while a snapshot failed, and tries the snapshot again', async () => {
    const inner = memoryGrantStore();
    const observed = observedStore(inner);
    let failures = 1;
    const store: GrantStore = {
      ...observed.store,
      watchRevocations(listener) {
        const subscription = observed.store.watchRevocations!(listener);
        return {
          ...subscription,
          snapshot: (now) =>
            failures-- > 0 ? Promise.reject(new Error('connection reset')) : subscription.snapshot(now),
        };
      },
    };
    const t = await testInstance({ storage: { grants: store }, pushedRevocations: { maxLagMs: 50 } });
    const token = await tokenOf(t);
    await untilMirrorAnswers(t, token, observed.asked);
    expect(failures).toBe(-1); // failed once, then taken again
  });

  it('is on by default for a grant store that asks for it, and off with pushedRevocations: false', async () => {
    const byDefault = observedStore();
    const store: GrantStore = { ...byDefault.store, pushedRevocationsByDefault: true };
    const t = await testInstance({ storage: { grants: store } });
    const token = await tokenOf(t);
    await untilMirrorAnswers(t, token, byDefault.asked);

    const off = observedStore();
    const perRequest = await testInstance({
      storage: { grants: { ...off.store, pushedRevocationsByDefault: true } },
      pushedRevocations: false,
    });
    const other = await tokenOf(perRequest);
    for (let i = 0; i < 5; i++) expect(await check(perRequest, other)).toBe(200);
    expect(off.asked()).toBe(5);
  });

  it('is off by default for a grant store that does not ask for it (the memory engine)', async () => {
    const observed = observedStore();
    const t = await testInstance({ storage: { grants: observed.store } });
    const token = await tokenOf(t);
    for (let i = 0; i < 5; i++) {
      expect(await check(t, token)).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(observed.asked()).toBe(5);
  });

  it('refuses pushedRevocations at creation for a grant store that cannot push', async () => {
    const { watchRevocations: _, ...plain } = memoryGrantStore();
    await expect(
      testInstance({ storage: { grants: plain }, pushedRevocations: true }),
    ).rejects.toBeInstanceOf(ConfigurationError);
    await expect(testInstance({ pushedRevocations: { maxLagMs: 10 } })).rejects.toBeInstanceOf(
      ConfigurationError,
    );
  });
});
