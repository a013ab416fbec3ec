import { ConfigurationError, type GatehouseEvent } from '@gatehousejs/core';
import { kvConsentStore, memoryGrantStore, memoryKeyValueStore } from '@gatehousejs/core/engine';
import { describe, expect, it } from 'vitest';
import { basic, issueTokens, post, testInstance } from '../../test/fixtures';

function refresh(t: Awaited<ReturnType<typeof testInstance>>, refreshToken: string) {
  return t.gatehouse.fetch(
    post(
      '/oauth2/v1/token',
      { grant_type: 'refresh_token', refresh_token: refreshToken },
      { Authorization: basic('demo-client', 'demo-secret') },
    ),
  );
}

/** The access token at a protected operation of the host: its response (200 when it passes). */
async function operation(t: Awaited<ReturnType<typeof testInstance>>, accessToken: string) {
  const result = await t.gatehouse.authenticate(
    new Request('http://localhost:3000/demo/api/v1/me', {
      headers: { Authorization: `Bearer ${accessToken}` },
    }),
    { schemes: ['bearer'] },
  );
  return result.ok ? new Response(null, { status: 200 }) : result.response;
}

describe("a user's grants (connected apps)", () => {
  it('lists each live grant once, with client name, scope, when it was created and last used', async () => {
    const t = await testInstance();
    const createdAt = t.clock.now();
    const first = await issueTokens(t, 'read write');
    t.clock.advance(60);
    const second = await issueTokens(t, 'read');
    await issueTokens(t, 'read', 'someone-else');
    t.clock.advance(60);
    const refreshed = await refresh(t, first.refresh_token);
    expect(refreshed.status).toBe(200);

    const grants = await t.gatehouse.listGrants('user-1');
    expect(grants).toEqual([
      {
        grantId: expect.any(String),
        clientId: 'demo-client',
        clientName: 'Demo Client',
        scope: ['read', 'write'],
        createdAt,
        lastUsedAt: createdAt + 120_000,
        expiresAt: createdAt + 120_000 + 2_592_000_000,
      },
      {
        grantId: expect.any(String),
        clientId: 'demo-client',
        clientName: 'Demo Client',
        scope: ['read'],
        createdAt: createdAt + 60_000,
        lastUsedAt: createdAt + 60_000,
        expiresAt: createdAt + 60_000 + 2_592_000_000,
      },
    ]);
    expect(second.refresh_token).toBeTruthy();
    expect(await t.gatehouse.listGrants('nobody')).toEqual([]);
  });

  it('revokes one grant: its tokens stop working, the other grant and the consent of other clients stay', async () => {
    const consentsKv = memoryKeyValueStore();
    const consents = kvConsentStore(consentsKv);
    const events: GatehouseEvent[] = [];
    const t = await testInstance({ storage: { kv: consentsKv }, onEvent: (event) => events.push(event) });
    const kept = await issueTokens(t, 'read');
    t.clock.advance(1);
    const removed = await issueTokens(t, 'read write');
    const expiresAt = t.clock.now() + 3_600_000;
    await consents.saveConsent({ userId: 'user-1', clientId: 'demo-client', scope: 'read write', expiresAt });
    await consents.saveConsent({ userId: 'user-1', clientId: 'other-client', scope: 'read', expiresAt });
    const [newest] = await t.gatehouse.listGrants('user-1');
    expect(newest!.scope).toEqual(['read', 'write']);

    expect(await t.gatehouse.revokeGrant('user-1', newest!.grantId)).toBe(true);
    expect((await refresh(t, removed.refresh_token)).status).toBe(400);
    const refused = await operation(t, removed.access_token);
    expect(refused.status).toBe(401);
    expect((await refused.json()).error_description).toBe('The access token has been revoked.');
    expect((await operation(t, kept.access_token)).status).toBe(200);
    expect((await t.gatehouse.listGrants('user-1')).map((g) => g.scope)).toEqual([['read']]);
    // The client must ask again; other clients' consents are untouched.
    expect(await consents.findConsent('user-1', 'demo-client', t.clock.now())).toBeNull();
    expect(await consents.findConsent('user-1', 'other-client', t.clock.now())).not.toBeNull();
    expect(events).toContainEqual({
      type: 'grant.revoked',
      userId: 'user-1',
      clientId: 'demo-client',
      grantId: newest!.grantId,
    });
    // Again: nothing left to revoke.
    expect(await t.gatehouse.revokeGrant('user-1', newest!.grantId)).toBe(false);
  });

  it("refuses to revoke another user's grant, and changes nothing", async () => {
    const t = await testInstance();
    const theirs = await issueTokens(t, 'read');
    const [grant] = await t.gatehouse.listGrants('user-1');
    expect(await t.gatehouse.revokeGrant('someone-else', grant!.grantId)).toBe(false);
    expect((await refresh(t, theirs.refresh_token)).status).toBe(200);
  });

  it('keeps the consent when asked to', async () => {
    const consentsKv = memoryKeyValueStore();
    const consents = kvConsentStore(consentsKv);
    const t = await testInstance({ storage: { kv: consentsKv } });
    await issueTokens(t, 'read');
    const expiresAt = t.clock.now() + 3_600_000;
    await consents.saveConsent({ userId: 'user-1', clientId: 'demo-client', scope: 'read', expiresAt });
    const [grant] = await t.gatehouse.listGrants('user-1');
    expect(await t.gatehouse.revokeGrant('user-1', grant!.grantId, { forgetConsent: false })).toBe(true);
    expect(await consents.findConsent('user-1', 'demo-client', t.clock.now())).not.toBeNull();
  });

  it('lists nothing after revokeUser, and the user can connect again', async () => {
    const t = await testInstance();
    await issueTokens(t, 'read');
    await t.gatehouse.revokeUser('user-1', { reason: 'compromised' });
    expect(await t.gatehouse.listGrants('user-1')).toEqual([]);
    t.clock.advance(1);
    await issueTokens(t, 'read');
    expect(await t.gatehouse.listGrants('user-1')).toHaveLength(1);
  });

  it('refuses with a precise error when the grant store cannot list, and on empty ids', async () => {
    const { listUserRefreshTokens: _, ...older } = memoryGrantStore();
    const t = await testInstance({ storage: { grants: older } });
    await expect(t.gatehouse.listGrants('user-1')).rejects.toThrow(ConfigurationError);
    await expect(t.gatehouse.revokeGrant('user-1', 'g')).rejects.toThrow(/listUserRefreshTokens/);
    await expect(t.gatehouse.listGrants('')).rejects.toThrow(TypeError);
  });
});
