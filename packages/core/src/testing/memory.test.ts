import {
  type GatehouseStorage,
  type GrantStore,
  memoryConsentStore,
  memoryGrantStore,
  memoryRateLimitStore,
  memorySessionStore,
} from '@gatehouse/core';
import { runStorageConformance } from '@gatehouse/core/testing';
import { afterAll, describe, expect, it } from 'vitest';

const memoryStorage = (grants: GrantStore = memoryGrantStore()): GatehouseStorage => ({
  grants,
  sessions: memorySessionStore(),
  consents: memoryConsentStore(),
  rateLimits: memoryRateLimitStore(),
});

runStorageConformance({ name: 'memory', create: () => memoryStorage() }, { describe, it, expect, afterAll });

/** Runs the suite outside vitest and returns the names of the cases that failed. */
async function failingCases(storage: GatehouseStorage): Promise<string[]> {
  const cases: { name: string; body: () => Promise<void> }[] = [];
  runStorageConformance(
    { name: 'probe', create: () => storage },
    { describe: (_name, body) => body(), it: (name, body) => cases.push({ name, body }), expect },
  );
  const failed: string[] = [];
  for (const { name, body } of cases) await body().catch(() => failed.push(name));
  return failed;
}

describe('the conformance suite', () => {
  it('fails an engine whose check-and-set is not atomic', async () => {
    const inner = memoryGrantStore();
    const racy: GrantStore = {
      ...inner,
      // Reads, yields, then writes: concurrent callers all see the code unconsumed.
      async redeemCode(codeHash, refreshToken, now, keepUntil) {
        const code = await inner.findCode(codeHash, now);
        await new Promise((resolve) => setTimeout(resolve, 1));
        if (!code) return { status: 'invalid' };
        if (code.consumedAt !== undefined) return { status: 'replayed', code };
        const consumed = { ...code, consumedAt: now, expiresAt: Math.max(code.expiresAt, keepUntil) };
        await inner.saveCode(consumed);
        if (refreshToken) await inner.saveRefreshToken(refreshToken);
        return { status: 'redeemed', code: consumed };
      },
    };
    expect(await failingCases(memoryStorage(racy))).toEqual([
      '200 parallel redemptions of one code: exactly one redeemed, the rest replayed',
    ]);
  });

  it('fails an engine that drops a consumed code at its original expiry', async () => {
    const inner = memoryGrantStore();
    const forgetful: GrantStore = {
      ...inner,
      // Ignores keepUntil: the consumed record keeps the code's own 60 s lifetime.
      redeemCode: (codeHash, refreshToken, now) => inner.redeemCode(codeHash, refreshToken, now, 0),
    };
    expect(await failingCases(memoryStorage(forgetful))).toEqual([
      'redeems a code once, storing its refresh token in the same step',
      'reports a second redemption as a replay and writes nothing for it',
      'keeps a consumed code past its own expiry until keepUntil, so a late replay is recognised',
    ]);
  });

  it('fails an engine that forgets grant revocations on bearer checks', async () => {
    const inner = memoryGrantStore();
    const leaky: GrantStore = {
      ...inner,
      isRevoked: (jti, _grantId, now) => inner.isRevoked(jti, undefined, now),
    };
    expect(await failingCases(memoryStorage(leaky))).toEqual([
      'revoking a grant stops its codes, its refresh tokens and its access tokens, and nothing else',
      'remembers a grant revocation until its expiresAt, never shortened by a later call',
    ]);
  });

  it('fails an engine that keeps records past their expiry', async () => {
    const inner = memoryGrantStore();
    const stale: GrantStore = {
      ...inner,
      findRefreshToken: (tokenHash) => inner.findRefreshToken(tokenHash, 0),
    };
    expect(await failingCases(memoryStorage(stale))).toEqual([
      'finds a saved refresh token with every field intact until it expires',
    ]);
  });
});
