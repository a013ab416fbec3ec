/**
 * The operations console (`/demo/admin/`) and the connected apps page (`/demo/account/apps`) in
 * real headless Chromium against the Express example server: `admin` signs in to the console
 * through the instance's own code flow, rotates and revokes a key and sees the timeline change,
 * finds `demo`'s sessions and grants and revokes a grant, whose refresh token is then refused over
 * HTTP; `demo` is refused the console; `demo` revokes an application on the connected apps page,
 * whose refresh token is then refused. Saves a screenshot of each page (to `GATEHOUSE_SCREENSHOTS`
 * when set, else the test artifacts).
 */
import { mkdirSync } from 'node:fs';
import * as oauth from 'oauth4webapi';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, chromiumSkipReason, launchChromium } from './support/browser';
import { type DemoServer, startDemoServer } from './support/demo-server';

const skip = chromiumSkipReason('browser-admin-console.test');
const insecure = { [oauth.allowInsecureRequests]: true } as const;
const screenshots = process.env.GATEHOUSE_SCREENSHOTS ?? ARTIFACTS_DIR;

async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(screenshots, { recursive: true });
  await page.screenshot({ path: `${screenshots}/${name}`, fullPage: true });
}

/** Fills the built-in login page the browser is on and submits it. */
async function logIn(page: Page, username: string, password: string): Promise<void> {
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Sign in' }).click()]);
}

/**
 * `demo` signs in to `demo-client` in `context` (the code flow with PKCE, through the login page
 * when the context has no session yet) and the test redeems the code: the refresh token.
 */
async function demoClientTokens(
  server: DemoServer,
  context: BrowserContext,
): Promise<{ refresh_token: string }> {
  const issuer = new URL(server.issuer);
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
  );
  const client: oauth.Client = { client_id: 'demo-client' };
  const redirectUri = `${server.origin}/callback`;
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const authorize = new URL(as.authorization_endpoint!);
  for (const [name, value] of Object.entries({
    client_id: client.client_id,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'profile',
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }))
    authorize.searchParams.set(name, value);
  const page = await context.newPage();
  await page.route(`${server.origin}/callback**`, (route) =>
    route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>callback</title>' }),
  );
  await page.goto(authorize.href);
  if (!page.url().startsWith(redirectUri)) {
    await logIn(page, 'demo', 'demo-password');
    await page.waitForURL(`${redirectUri}?**`);
  }
  const params = oauth.validateAuthResponse(as, client, new URL(page.url()), state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.ClientSecretBasic('demo-secret'),
    params,
    redirectUri,
    verifier,
    insecure,
  );
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
  expect(tokens.refresh_token).toBeTruthy();
  await page.close();
  return { refresh_token: tokens.refresh_token! };
}

/** A refresh of `demo-client` over HTTP: its status and error. */
async function refresh(
  server: DemoServer,
  refreshToken: string,
): Promise<{ status: number; error?: string }> {
  const response = await fetch(`${server.issuer}/oauth2/v1/token`, {
    method: 'POST',
    headers: {
      Authorization: `Basic ${btoa('demo-client:demo-secret')}`,
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }),
  });
  const body = (await response.json()) as { error?: string };
  return { status: response.status, ...(body.error === undefined ? {} : { error: body.error }) };
}

/** The rows of the keys table: kid and state. */
async function keyRows(page: Page): Promise<{ kid: string; state: string }[]> {
  return page.$$eval('table tbody tr', (rows) =>
    rows.map((row) => ({
      kid: row.querySelector('td code')?.textContent ?? '',
      state: row.querySelector('.badge')?.className.replace('badge', '').trim() ?? '',
    })),
  );
}

describe.skipIf(skip !== undefined)('the operations console and connected apps in a real browser', () => {
  let server: DemoServer;
  let browser: Browser;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startDemoServer(), launchChromium()]);
  }, 30_000);

  afterAll(async () => {
    await Promise.all([browser?.close(), server?.stop()]);
  });

  it("lets admin rotate and revoke keys and revoke demo's grant, whose refresh token is then refused", async () => {
    // demo holds a grant of demo-client (and a session) before the admin looks.
    const demoContext = await browser.newContext();
    const { refresh_token } = await demoClientTokens(server, demoContext);
    const current = await demoClientTokens(server, demoContext);

    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${server.issuer}/admin/`);
    expect(new URL(page.url()).pathname).toBe('/demo/login');
    await logIn(page, 'admin', 'admin-password');
    expect(page.url()).toBe(`${server.issuer}/admin/`);
    expect(await page.textContent('h1')).toBe('Overview');
    expect(await page.getByRole('navigation', { name: 'Console sections' }).isVisible()).toBe(true);
    expect(await page.getByRole('img', { name: /Tokens issued per grant type/ }).count()).toBe(1);
    await screenshot(page, 'console-overview.png');

    // Keys: rotate (a next key appears on the timeline), then revoke it.
    await page.getByRole('link', { name: 'Signing keys' }).click();
    await page.waitForURL(`${server.issuer}/admin/keys`);
    const before = await keyRows(page);
    // At once: the next key signs now and a new next key is published (without it, the next key
    // waits for its lead time).
    await page.getByLabel(/Sign with the new key at once/).check();
    await page.getByRole('button', { name: 'Rotate keys' }).click();
    await page.waitForURL(/\/admin\/keys\?notice=rotated/);
    expect(await page.getByRole('status').textContent()).toContain('Keys rotated.');
    const rotated = await keyRows(page);
    expect(rotated.length).toBeGreaterThan(before.length);
    const next = rotated.find((row) => row.state === 'next');
    expect(next).toBeDefined();
    const timelineBefore = await page.getByRole('img', { name: 'Key timeline' }).innerHTML();
    expect(timelineBefore).toContain(next!.kid.slice(0, 17));
    await screenshot(page, 'console-keys-rotated.png');
    await page.getByRole('button', { name: `Revoke ${next!.kid}` }).click();
    await page.waitForURL(/notice=key-revoked/);
    expect(await page.getByRole('status').textContent()).toContain(`Key ${next!.kid} revoked.`);
    expect((await keyRows(page)).find((row) => row.kid === next!.kid)?.state).toBe('revoked');
    const timelineAfter = await page.getByRole('img', { name: 'Key timeline' }).innerHTML();
    expect(timelineAfter).not.toBe(timelineBefore);
    expect(timelineAfter).toContain('#dc2626'); // a revoked key's bar
    await screenshot(page, 'console-keys-revoked.png');

    await page.getByRole('link', { name: 'Clients' }).click();
    await page.waitForURL(`${server.issuer}/admin/clients`);
    expect(await page.locator('table').textContent()).toContain('demo-client');
    await screenshot(page, 'console-clients.png');

    // Users: find demo, see their sessions and grants, revoke the first grant.
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByLabel('User id or username').fill('user-demo');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('link', { name: /demo/ }).first().click();
    await page.waitForURL(/user=user-demo/);
    expect(await page.getByRole('table', { name: 'Sessions' }).locator('tbody tr').count()).toBeGreaterThan(
      0,
    );
    const grants = page.getByRole('table', { name: 'Grants' });
    expect(await grants.locator('tbody tr').count()).toBeGreaterThanOrEqual(2);
    await screenshot(page, 'console-user.png');
    const grantRow = grants.locator('tbody tr').first();
    await grantRow.getByRole('button', { name: /Revoke/ }).click();
    await page.waitForURL(/notice=grant-revoked/);
    expect(await page.getByRole('status').textContent()).toContain('Grant revoked');
    // One of demo's two grants is gone; its refresh token is refused over HTTP, the other works.
    const outcomes = await Promise.all([
      refresh(server, refresh_token),
      refresh(server, current.refresh_token),
    ]);
    expect(outcomes.map((o) => o.status).sort()).toEqual([200, 400]);
    expect(outcomes.find((o) => o.status === 400)?.error).toBe('invalid_grant');

    await page.getByRole('link', { name: 'Audit trail' }).click();
    await page.getByLabel('Event type').fill('admin.action');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/type=admin.action/);
    expect(await page.locator('table').textContent()).toContain('admin.action');
    await screenshot(page, 'console-audit.png');
    await Promise.all([context.close(), demoContext.close()]);
  }, 120_000);

  it('refuses demo the console', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.issuer}/admin/`);
    await logIn(page, 'demo', 'demo-password');
    expect(page.url()).toBe(`${server.issuer}/admin/`);
    expect(await page.getByRole('alert').textContent()).toBe(
      'Your account is not allowed to use the operations console.',
    );
    const again = await page.goto(`${server.issuer}/admin/keys`);
    // Signed in at the instance still (no login page), refused again.
    expect(again?.status()).toBe(403);
    await screenshot(page, 'console-refused.png');
    await context.close();
  }, 60_000);

  it('lets demo revoke an application on the connected apps page; its refresh token is then refused', async () => {
    const context = await browser.newContext({ viewport: { width: 600, height: 900 } });
    const { refresh_token } = await demoClientTokens(server, context);
    const page = await context.newPage();
    await page.goto(`${server.issuer}/account/apps`);
    expect(await page.textContent('h1')).toBe('Connected apps');
    const app = page
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: 'Demo Client' }) });
    expect(await app.count()).toBe(1);
    await screenshot(page, 'account-apps.png');
    await app.getByRole('button', { name: 'Revoke access — Demo Client' }).click();
    await page.waitForLoadState('load');
    expect(await page.getByRole('status').textContent()).toBe(
      'Demo Client no longer has access to your account.',
    );
    expect(await page.getByRole('heading', { name: 'Demo Client' }).count()).toBe(0);
    await screenshot(page, 'account-apps-revoked.png');
    expect(await refresh(server, refresh_token)).toEqual({ status: 400, error: 'invalid_grant' });
    await context.close();
  }, 60_000);

  it('signs a browser without a session in first, then shows the connected apps page', async () => {
    const context = await browser.newContext({ locale: 'fr-FR' });
    const page = await context.newPage();
    await page.goto(`${server.issuer}/account/apps`);
    expect(new URL(page.url()).pathname).toBe('/demo/login');
    await page.getByLabel("Nom d'utilisateur").fill('demo');
    await page.getByLabel('Mot de passe').fill('demo-password');
    await Promise.all([
      page.waitForLoadState('load'),
      page.getByRole('button', { name: 'Se connecter' }).click(),
    ]);
    expect(page.url()).toBe(`${server.issuer}/account/apps`);
    expect(await page.textContent('h1')).toBe('Applications connectées');
    await screenshot(page, 'account-apps-fr.png');
    await context.close();
  }, 60_000);
});
