import { type GatehouseEvent, memoryUserStore } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { FakeBrowser, ORIGIN } from '../../test/browser-flow';
import {
  basic,
  ISSUER,
  issueTokens,
  mintCode,
  PKCE_VERIFIER,
  post,
  REDIRECT_URI,
  type TestInstance,
  testHasher,
  testInstance,
} from '../../test/fixtures';

const APPS = `${ISSUER}/account/apps`;

/** Tokens of `other-client` (no name) for `user-1`. */
async function otherClientTokens(t: TestInstance, scope = 'read') {
  const code = await mintCode(t, { clientId: 'other-client', scope });
  const response = await t.gatehouse.fetch(
    post(
      '/oauth2/v1/token',
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: PKCE_VERIFIER },
      { Authorization: basic('other-client', 'other-secret') },
    ),
  );
  expect(response.status).toBe(200);
  return (await response.json()) as { access_token: string; refresh_token: string };
}

function refresh(t: TestInstance, client: [string, string], refreshToken: string) {
  return t.gatehouse.fetch(
    post(
      '/oauth2/v1/token',
      { grant_type: 'refresh_token', refresh_token: refreshToken },
      { Authorization: basic(...client) },
    ),
  );
}

/** A browser signed in as `demo` (user-1) through the page's own sign-in; answers the page it lands on. */
async function signedInAtApps(t: TestInstance, headers: Record<string, string> = {}) {
  const browser = new FakeBrowser(t.gatehouse);
  const login = await browser.get(APPS, headers);
  expect(login.status).toBe(200);
  const loginHtml = await login.text();
  expect(loginHtml).toContain('name="password"');
  const resumed = await browser.follow(
    await browser.submit(loginHtml, { username: 'demo', password: 'demo-password' }),
  );
  expect(resumed.status).toBe(303);
  expect(resumed.headers.get('location')).toBe('/demo/account/apps');
  const page = await browser.get(resumed.headers.get('location')!, headers);
  return { browser, page, html: await page.text() };
}

/** The revoke form of the application named in its hidden `client_id`. */
function revokeForm(html: string, clientId: string): string {
  const form = [...html.matchAll(/<form method="post"[\s\S]*?<\/form>/g)]
    .map((m) => m[0])
    .find((f) => f.includes(`name="client_id" value="${clientId}"`));
  if (!form) throw new Error(`no revoke form for ${clientId}`);
  return form;
}

describe('connected apps (the page at {base}/account/apps and the host API)', () => {
  it('answers one entry per application, merging its grants, most recently used first', async () => {
    const t = await testInstance();
    const start = t.clock.now();
    await issueTokens(t, 'read');
    t.clock.advance(60);
    await issueTokens(t, 'write');
    t.clock.advance(60);
    await otherClientTokens(t);
    await issueTokens(t, 'read', 'user-2');
    expect(await t.gatehouse.connectedApps('user-1')).toEqual([
      {
        clientId: 'other-client',
        scope: ['read'],
        since: start + 120_000,
        lastUsedAt: start + 120_000,
        expiresAt: expect.any(Number),
        grants: 1,
      },
      {
        clientId: 'demo-client',
        clientName: 'Demo Client',
        scope: ['write', 'read'],
        since: start,
        lastUsedAt: start + 60_000,
        expiresAt: expect.any(Number),
        grants: 2,
      },
    ]);
    await expect(t.gatehouse.connectedApps('')).rejects.toThrow(TypeError);
  });

  it('signs a browser without a session in first, then lists its applications with a revoke button each', async () => {
    const t = await testInstance();
    await issueTokens(t, 'openid offline_access read');
    await otherClientTokens(t);
    const { page, html } = await signedInAtApps(t);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('cache-control')).toContain('no-store');
    expect(html).toContain('<h1>Connected apps</h1>');
    expect(html).toContain('Demo Client');
    expect(html).toContain('<code>other-client</code>');
    // openid in words, read by name.
    expect(html).toContain('Know who you are');
    expect(html).toContain('<code>read</code>');
    expect(html).toContain('Signed in as demo.');
    expect(html.match(/Revoke access<span class="vh">/g)).toHaveLength(2);
    expect(html).not.toMatch(/<script/i);
  });

  it("revokes an application: its refresh tokens and access tokens stop working, the user's other applications keep theirs", async () => {
    const events: GatehouseEvent[] = [];
    const t = await testInstance({ onEvent: (event) => events.push(event) });
    const demo = await issueTokens(t, 'read');
    const other = await otherClientTokens(t);
    const { browser, html } = await signedInAtApps(t);

    const answer = await browser.submit(revokeForm(html, 'demo-client'));
    expect(answer.status).toBe(200);
    const after = await answer.text();
    expect(after).toContain('role="status"');
    expect(after).toContain('<strong><bdi>Demo Client</bdi></strong> no longer has access to your account.');
    expect(after).not.toContain('name="client_id" value="demo-client"');
    expect(after).toContain('name="client_id" value="other-client"');

    const refused = await refresh(t, ['demo-client', 'demo-secret'], demo.refresh_token);
    expect(refused.status).toBe(400);
    expect((await refused.json()).error).toBe('invalid_grant');
    const bearer = await t.gatehouse.authenticate(
      new Request(`${ORIGIN}/demo/api/v1/me`, { headers: { Authorization: `Bearer ${demo.access_token}` } }),
      { schemes: ['bearer'] },
    );
    expect(bearer.ok).toBe(false);
    expect((await refresh(t, ['other-client', 'other-secret'], other.refresh_token)).status).toBe(200);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'grant.revoked', userId: 'user-1', clientId: 'demo-client' }),
    );
    expect(events).toContainEqual({ type: 'consent.withdrawn', userId: 'user-1', clientId: 'demo-client' });
  });

  it("revokes only the signed-in user's own grants, whatever client the form names", async () => {
    const t = await testInstance({
      users: memoryUserStore(
        [
          { id: 'user-1', username: 'demo', passwordHash: await testHasher.hash('demo-password') },
          { id: 'user-2', username: 'other', passwordHash: await testHasher.hash('other-password') },
        ],
        { hasher: testHasher },
      ),
    });
    await issueTokens(t, 'read');
    const someoneElse = await issueTokens(t, 'read', 'user-2');
    const { browser, html } = await signedInAtApps(t);
    await browser.submit(revokeForm(html, 'demo-client'));
    // user-1 has nothing left at demo-client; naming it again revokes nothing of user-2's.
    const again = await browser.submit(revokeForm(html, 'demo-client'));
    expect(await again.text()).toContain('That application no longer had access.');
    expect((await refresh(t, ['demo-client', 'demo-secret'], someoneElse.refresh_token)).status).toBe(200);
    expect(await t.gatehouse.connectedApps('user-2')).toHaveLength(1);
  });

  it('refuses a cross-site post and one without the form token, revoking nothing', async () => {
    const t = await testInstance();
    const tokens = await issueTokens(t, 'read');
    const { browser, html } = await signedInAtApps(t);
    const form = revokeForm(html, 'demo-client');
    const crossSite = await browser.submit(
      form,
      {},
      { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' },
    );
    expect(crossSite.status).toBe(403);
    const forged = await browser.submit(form, { csrf_token: 'x'.repeat(43) });
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain('forbidden');
    expect((await refresh(t, ['demo-client', 'demo-secret'], tokens.refresh_token)).status).toBe(200);
  });

  it('speaks French to a French browser', async () => {
    const t = await testInstance();
    await issueTokens(t, 'read');
    const { html } = await signedInAtApps(t, { 'Accept-Language': 'fr-FR,fr;q=0.9' });
    expect(html).toContain('<html lang="fr">');
    expect(html).toContain('<h1>Applications connectées</h1>');
    expect(html).toContain('Révoquer l&#39;accès');
  });

  it('is not served with `connectedApps: false`, while the host API still answers', async () => {
    const t = await testInstance({ connectedApps: false });
    await issueTokens(t, 'read');
    const response = await t.gatehouse.fetch(new Request(APPS, { headers: { Accept: 'text/html' } }));
    expect(response.status).toBe(404);
    expect(await t.gatehouse.revokeApp('user-1', 'demo-client')).toBe(1);
    expect(await t.gatehouse.connectedApps('user-1')).toEqual([]);
  });

  it('refuses a malformed option at creation', async () => {
    await expect(testInstance({ connectedApps: 'yes' as never })).rejects.toMatchObject({
      code: 'ERR_CONFIG_INVALID_OPTION',
      option: 'connectedApps',
    });
  });
});
