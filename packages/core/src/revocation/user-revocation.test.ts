import {
  ConfigurationError,
  type GatehouseEvent,
  StorageUnavailableError,
  type UserStore,
} from '@gatehousejs/core';
import { authenticateNow } from '@gatehousejs/core/adapter';
import { type GrantStore, memoryGrantStore } from '@gatehousejs/core/engine';
import { describe, expect, it } from 'vitest';
import { authorizeUrl, callbackParams, FakeBrowser, logIn } from '../../test/browser-flow';
import {
  basic,
  ISSUER,
  issueTokens,
  mintCode,
  PKCE_VERIFIER,
  post,
  REDIRECT_URI,
  testInstance,
} from '../../test/fixtures';

const redeem = (code: string) =>
  post(
    '/oauth2/v1/token',
    { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: PKCE_VERIFIER },
    { Authorization: basic('demo-client', 'demo-secret') },
  );

/** A grant store written before user marks existed: no revokeSubject, no subjectRevokedAt. */
function storeWithoutMarks(): GrantStore {
  const { revokeSubject: _r, subjectRevokedAt: _s, ...rest } = memoryGrantStore();
  return rest;
}

describe('gatehouse.revokeUser', () => {
  it('takes back the consents the user gave: a third-party client asks again, even once signed in anew', async () => {
    const t = await testInstance();
    const thirdParty = authorizeUrl({
      client_id: 'other-client',
      code_challenge: null,
      code_challenge_method: null,
    });
    const browser = new FakeBrowser(t.gatehouse);
    const consent = await browser.follow(await logIn(browser, thirdParty));
    expect(
      callbackParams(await browser.submitAndFollow(await consent.text(), { decision: 'allow' })).has('code'),
    ).toBe(true);
    // Remembered: straight to the code.
    expect(callbackParams(await browser.get(thirdParty)).has('code')).toBe(true);

    t.clock.advance(1);
    await t.gatehouse.revokeUser('user-1', { reason: 'compromised' });
    // Past every token's and session's lifetime (30 days): the mark still takes the consent back.
    t.clock.advance(31 * 86_400);
    const again = await browser.follow(await logIn(browser, thirdParty));
    expect(again.status).toBe(200);
    const page = await again.text();
    expect(page).toContain('name="decision"');
    expect(callbackParams(await browser.submitAndFollow(page, { decision: 'allow' })).has('code')).toBe(true);
    // Given after the mark: remembered again.
    expect(callbackParams(await browser.get(thirdParty)).has('code')).toBe(true);
  });

  it("refuses an authorization code of the user minted before it, and emits user.revoked with the host's reason", async () => {
    const events: GatehouseEvent[] = [];
    const t = await testInstance({ onEvent: (event) => events.push(event) });
    const before = await mintCode(t);
    t.clock.advance(1);
    await t.gatehouse.revokeUser('user-1', { reason: 'compromised' });
    expect(events).toContainEqual({ type: 'user.revoked', userId: 'user-1', reason: 'compromised' });

    const refused = await t.gatehouse.fetch(redeem(before));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'invalid_grant' });
    t.clock.advance(1);
    expect((await t.gatehouse.fetch(redeem(await mintCode(t)))).status).toBe(200);
    // Another user's codes are untouched.
    expect((await t.gatehouse.fetch(redeem(await mintCode(t, { userId: 'user-2' })))).status).toBe(200);
  });

  it('answers the bearer check of a known token without waiting, the user mark included', async () => {
    const t = await testInstance();
    const response = await t.gatehouse.fetch(
      new Request(`${ISSUER}/auth/v1/token`, {
        method: 'POST',
        headers: { Authorization: `Basic ${btoa('demo:demo-password')}` },
      }),
    );
    const { access_token: token } = (await response.json()) as { access_token: string };
    const request = () => new Request(`${ISSUER}/api`, { headers: { Authorization: `Bearer ${token}` } });
    await t.gatehouse.authenticate(request(), { schemes: ['bearer'] }); // verifies and caches
    expect(authenticateNow(t.gatehouse, request(), { schemes: ['bearer'] })).toMatchObject({ ok: true });
    await t.gatehouse.revokeUser('user-1');
    const refused = authenticateNow(t.gatehouse, request(), { schemes: ['bearer'] });
    expect(refused).not.toBeInstanceOf(Promise);
    expect(refused).toMatchObject({ ok: false });
    expect((refused as { response: Response }).response.status).toBe(401);
  });

  it('rejects with ConfigurationError, revoking nothing, on a grant store without revokeSubject', async () => {
    const t = await testInstance({ storage: { grants: storeWithoutMarks() } });
    await expect(t.gatehouse.revokeUser('user-1')).rejects.toBeInstanceOf(ConfigurationError);
  });

  it('rejects an empty user id with TypeError', async () => {
    const t = await testInstance();
    await expect(t.gatehouse.revokeUser('')).rejects.toBeInstanceOf(TypeError);
  });

  it('rejects with StorageUnavailableError when the store fails, so the host can retry', async () => {
    const grants: GrantStore = {
      ...memoryGrantStore(),
      revokeSubject: async () => {
        throw new Error('connection reset');
      },
      subjectRevokedAt: async () => null,
    };
    const t = await testInstance({ storage: { grants } });
    await expect(t.gatehouse.revokeUser('user-1')).rejects.toBeInstanceOf(StorageUnavailableError);
  });

  it('refuses a grant store with only one of revokeSubject and subjectRevokedAt at creation', async () => {
    const { subjectRevokedAt: _, ...halfway } = memoryGrantStore();
    await expect(testInstance({ storage: { grants: halfway } })).rejects.toBeInstanceOf(ConfigurationError);
  });
});

describe('gatehouse.deleteUser', () => {
  /** A user store the host deletes from, and a bearer check of one token. */
  async function setUp() {
    const events: GatehouseEvent[] = [];
    const deleted = new Set<string>();
    const users: UserStore = {
      verifyPassword: async () => null,
      findUser: async (id) => (deleted.has(id) ? null : { id, username: 'demo' }),
    };
    const t = await testInstance({ users, onEvent: (event) => events.push(event) });
    const { access_token } = await issueTokens(t, 'read');
    const bearer = async () =>
      (
        await t.gatehouse.authenticate(
          new Request(`${ISSUER}/api/v1/me`, { headers: { Authorization: `Bearer ${access_token}` } }),
          { schemes: ['bearer'] },
        )
      ).ok;
    return { t, events, deleted, bearer };
  }

  it('revokes first, then removes: the token fails the bearer check before the user is gone', async () => {
    const { t, events, deleted, bearer } = await setUp();
    // Deleting from the user store alone leaves the token passing the bearer check (no lookup there).
    deleted.add('user-1');
    expect(await bearer()).toBe(true);
    deleted.delete('user-1');

    let passedDuringRemove: boolean | undefined;
    await t.gatehouse.deleteUser('user-1', async () => {
      passedDuringRemove = await bearer();
      deleted.add('user-1');
    });
    expect(passedDuringRemove).toBe(false);
    expect(await bearer()).toBe(false);
    expect(events.filter((e) => e.type.startsWith('user.'))).toEqual([
      { type: 'user.revoked', userId: 'user-1', reason: 'deleted' },
      { type: 'user.deleted', userId: 'user-1' },
    ]);
  });

  it('leaves the user revoked and emits no user.deleted when the removal fails, so the host retries', async () => {
    const { t, events, bearer } = await setUp();
    await expect(
      t.gatehouse.deleteUser('user-1', () => Promise.reject(new Error('database down'))),
    ).rejects.toThrow('database down');
    expect(await bearer()).toBe(false);
    expect(events.map((e) => e.type)).not.toContain('user.deleted');
    await expect(t.gatehouse.deleteUser('user-1', 'nope' as never)).rejects.toThrow(TypeError);
  });
});
