import { type GrantStore, memoryGrantStore } from '@gatehousejs/core/engine';
import { describe, expect, it } from 'vitest';
import {
  basic,
  issueTokens,
  mintCode,
  PKCE_VERIFIER,
  post,
  REDIRECT_URI,
  testInstance,
} from '../../test/fixtures';

/**
 * A grant store whose chosen methods fail (or hang) until `heal()`. `oneStep: false` leaves out the
 * exchanges, as a host's store written before them does (Gatehouse then finds, checks and consumes
 * in two calls).
 */
function faultyGrantStore(
  inner: GrantStore,
  failing: (keyof GrantStore)[],
  mode: 'reject' | 'hang' = 'reject',
  oneStep = true,
) {
  let broken = true;
  const store = { ...inner } as GrantStore;
  if (!oneStep) {
    delete store.exchangeCode;
    delete store.exchangeRefreshToken;
  }
  for (const name of failing) {
    const original = inner[name] as (...args: unknown[]) => Promise<unknown>;
    (store as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
      if (!broken) return original(...args);
      return mode === 'reject'
        ? Promise.reject(new Error('connection refused: secret-host:6379'))
        : new Promise(() => {});
    };
  }
  return { store, heal: () => (broken = false) };
}

describe.each([
  { oneStep: true, kind: 'with the one-step exchanges' },
  { oneStep: false, kind: 'without the exchanges' },
])('a failing store $kind', ({ oneStep }) => {
  it('answers 503 temporarily_unavailable, leaks nothing, and consumes nothing', async () => {
    const inner = memoryGrantStore();
    const { store, heal } = faultyGrantStore(
      inner,
      [oneStep ? 'exchangeCode' : 'redeemCode'],
      'reject',
      oneStep,
    );
    const t = await testInstance({ storage: { grants: store } });
    // mintCode writes through t.grants, which the instance wraps: use the healthy inner store.
    const code = await mintCode({ ...t, grants: inner });
    const request = () =>
      post(
        '/oauth2/v1/token',
        { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: PKCE_VERIFIER },
        { Authorization: basic('demo-client', 'demo-secret') },
      );
    const failed = await t.gatehouse.fetch(request());
    expect(failed.status).toBe(503);
    expect(failed.headers.get('retry-after')).toBe('1');
    const text = await failed.text();
    expect(JSON.parse(text).error).toBe('temporarily_unavailable');
    expect(text).not.toContain('secret-host');
    heal();
    // The code was not consumed by the failed attempt.
    expect((await t.gatehouse.fetch(request())).status).toBe(200);
  });

  it('bounds a hanging store call by storageTimeoutMs', async () => {
    const inner = memoryGrantStore();
    const { store } = faultyGrantStore(inner, ['isRevoked', 'findRefreshToken'], 'hang', oneStep);
    const t = await testInstance({ storage: { grants: store }, storageTimeoutMs: 50 });
    const response = await t.gatehouse.fetch(
      post(
        '/oauth2/v1/introspect',
        { token: 'whatever' },
        { Authorization: basic('demo-client', 'demo-secret') },
      ),
    );
    expect(response.status).toBe(503);
  });

  it('leaves the refresh token usable when rotation fails midway', async () => {
    const inner = memoryGrantStore();
    const { store, heal } = faultyGrantStore(
      inner,
      [oneStep ? 'exchangeRefreshToken' : 'rotateRefreshToken'],
      'reject',
      oneStep,
    );
    const t = await testInstance({ storage: { grants: store } });
    const { refresh_token } = await issueTokens({ ...t, grants: inner });
    const refresh = () =>
      post(
        '/oauth2/v1/token',
        { grant_type: 'refresh_token', refresh_token },
        { Authorization: basic('demo-client', 'demo-secret') },
      );
    expect((await t.gatehouse.fetch(refresh())).status).toBe(503);
    heal();
    expect((await t.gatehouse.fetch(refresh())).status).toBe(200);
  });
});
