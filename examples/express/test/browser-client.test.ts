/**
 * End to end: the demo browser app (public/, bundled from src/browser/app.ts) in headless Chromium
 * against the Express example server, as `pnpm start` runs it. Signs in with the code flow and
 * PKCE, lists tickets with the bearer token and with the session cookie, refreshes, signs out.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { artifactPath, chromiumSkipReason } from './support/browser';
import { withBundledDemo } from './support/bundled-demo';

const skipReason = chromiumSkipReason('browser-client.test');

/** Clicks a button of the app and waits until its action has finished. */
async function press(page: Page, id: string): Promise<string> {
  const done = Number((await page.getAttribute('body', 'data-actions')) ?? '0');
  await page.click(`#${id}`);
  await page.waitForSelector(`body[data-actions="${done + 1}"]`);
  return (await page.textContent('#message')) ?? '';
}

describe.skipIf(skipReason !== undefined)('the demo browser app (Chromium, Express example server)', () => {
  const demo = withBundledDemo();

  it('signs in, lists tickets in oauth and session mode, refreshes and signs out', async () => {
    const { browser, origin } = demo();
    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));

    await page.goto(`${origin}/`);
    await page.waitForSelector('body[data-ready="yes"]');
    expect(await page.textContent('#who')).toBe('nobody (no session)');
    expect(await page.textContent('#expires')).toBe('no token');

    // The code flow: authorize → login page (of the sign-in interaction) → callback → back on the app.
    const authorizeRequests: URL[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname.endsWith('/oauth2/v1/authorize')) authorizeRequests.push(url);
    });
    await page.click('#sign-in');
    await page.waitForSelector('input[name=username]');
    expect(authorizeRequests[0]?.searchParams.get('code_challenge_method')).toBe('S256');
    expect(new URL(page.url()).pathname).toBe('/demo/login');
    await page.fill('input[name=username]', 'demo');
    await page.fill('input[name=password]', 'demo-password');
    await Promise.all([page.waitForURL(`${origin}/`), page.click('button[type=submit]')]);
    await page.waitForSelector('body[data-ready="yes"][data-signed-in="yes"]');
    expect(await page.textContent('#message')).toBe('Signed in.');
    expect(await page.textContent('#who')).toBe('user-demo');
    expect(await page.textContent('#expires')).toMatch(/\(in 3\d{3} s\)$/);
    // The callback URL (with its code) is gone from the history entry.
    expect(page.url()).toBe(`${origin}/`);

    expect(await press(page, 'tickets-oauth')).toMatch(/^[1-5] tickets listed with the bearer token\.$/);
    const oauthTickets = await page.locator('#tickets li').count();
    expect(oauthTickets).toBeGreaterThan(0);
    expect(oauthTickets).toBeLessThanOrEqual(5);

    expect(await press(page, 'tickets-session')).toMatch(/^[1-5] tickets listed with the session cookie\.$/);
    expect(await page.textContent('#tickets-mode')).toBe('session cookie (session mode)');

    const before = await page.textContent('#token-id');
    expect(await press(page, 'refresh')).toBe('Token refreshed.');
    expect(await page.textContent('#token-id')).not.toBe(before);
    expect(await press(page, 'tickets-oauth')).toMatch(/with the bearer token/);

    await page.screenshot({ path: artifactPath('client-demo.png'), fullPage: true });

    expect(await press(page, 'sign-out')).toBe('Signed out: tokens revoked, session ended.');
    expect(await page.textContent('#who')).toBe('nobody (no session)');
    expect(await page.textContent('#expires')).toBe('no token');
    // Both credentials are dead now: no token to send, and the cookie no longer opens the API.
    expect(await press(page, 'tickets-oauth')).toMatch(/^no_token/);
    expect(await press(page, 'tickets-session')).toMatch(/^Tickets \(session\): 401/);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('shows a callback that belongs to no sign-in of the page, without exchanging anything', async () => {
    const { browser, origin } = demo();
    const page = await browser.newPage();
    await page.goto(`${origin}/callback?code=abc&state=forged`);
    await page.waitForSelector('body[data-ready="yes"]');
    expect(await page.textContent('#callback-result')).toMatch(/does not belong to a sign-in/);
    expect(await page.textContent('#callback-params')).toContain('forged');
    await page.close();
  });
});
