/**
 * End to end, in headless Chromium: several tabs of one browser profile share a token set in
 * localStorage (public/cross-tab.html, bundled from src/browser/cross-tab.ts). When its access
 * token has expired and every tab calls the API at once, the Web Lock the client takes around a
 * refresh lets exactly one tab refresh; the others reuse its result instead of presenting the
 * rotated refresh token, which the server would treat as reuse and answer by revoking the grant
 * (RFC 9700 §4.14.2). Without the lock (`?locks=off`) the tabs do trip reuse detection.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { GatehouseTestPage } from '../src/browser/cross-tab';
import { chromiumSkipReason } from './support/browser';
import { type BundledDemo, withBundledDemo } from './support/bundled-demo';

declare global {
  interface Window {
    gatehouseTest: GatehouseTestPage;
  }
}

const skipReason = chromiumSkipReason('browser-cross-tab.test');
const TABS = 3;
const CALLS_PER_TAB = 4;

/** The refresh-token grants sent to the token endpoint, counted as the browser sends them. */
function countRefreshes(context: BrowserContext): { count(): number } {
  let refreshes = 0;
  context.on('request', (request) => {
    if (request.method() !== 'POST' || new URL(request.url()).pathname !== '/demo/oauth2/v1/token') return;
    if (new URLSearchParams(request.postData() ?? '').get('grant_type') === 'refresh_token') refreshes += 1;
  });
  return { count: () => refreshes };
}

/** Opens the test page in a new tab of the context and waits until it is ready. */
async function openTab(context: BrowserContext, origin: string, query: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${origin}/cross-tab.html${query}`);
  await page.waitForSelector('body[data-ready="yes"]');
  return page;
}

/**
 * Signs in once, in the first tab: the code flow with PKCE through the login page, back to the
 * demo's `/callback` page (which leaves a sign-in it did not start alone), completed by the test page.
 */
async function signIn(page: Page, origin: string, query: string): Promise<void> {
  const url = await page.evaluate(async () => (await window.gatehouseTest.client.authorizationUrl()).href);
  await page.goto(url);
  await page.fill('input[name=username]', 'demo');
  await page.fill('input[name=password]', 'demo-password');
  await Promise.all([page.waitForURL(`${origin}/callback?**`), page.click('button[type=submit]')]);
  const callback = page.url();
  await page.goto(`${origin}/cross-tab.html${query}`);
  await page.waitForSelector('body[data-ready="yes"]');
  await page.evaluate((url) => window.gatehouseTest.handleCallback(url), callback);
}

/** One context (one profile: shared localStorage) with `TABS` tabs, signed in, token expired. */
async function expiredSession({ browser, origin }: BundledDemo, query: string) {
  const context = await browser.newContext();
  const refreshes = countRefreshes(context);
  const pageErrors: string[] = [];
  context.on('weberror', (error) => pageErrors.push(error.error().message));
  const first = await openTab(context, origin, query);
  await signIn(first, origin, query);
  const tabs = [first];
  for (let i = 1; i < TABS; i += 1) tabs.push(await openTab(context, origin, query));
  // Every tab sees the same token set (localStorage is per origin, not per tab).
  const initial = await first.evaluate(() => window.gatehouseTest.accessToken());
  expect(initial).toBeTruthy();
  for (const tab of tabs) expect(await tab.evaluate(() => window.gatehouseTest.accessToken())).toBe(initial);
  await first.evaluate(() => window.gatehouseTest.expireTokens());
  expect(refreshes.count()).toBe(0);
  return { context, tabs, refreshes, pageErrors, initial };
}

/** Every tab sends its requests at the same moment; resolves with all outcomes. */
async function ticketsInAllTabs(tabs: Page[]) {
  const startAt = Date.now() + 500;
  const perTab = await Promise.all(
    tabs.map((tab) =>
      tab.evaluate(([at, count]) => window.gatehouseTest.ticketsAt(at, count), [
        startAt,
        CALLS_PER_TAB,
      ] as const),
    ),
  );
  return perTab.flat();
}

describe.skipIf(skipReason !== undefined)(
  'refresh across browser tabs (Chromium, Express example server)',
  () => {
    const demo = withBundledDemo();

    it('with Web Locks, tabs calling at once with an expired token share exactly one refresh', async () => {
      const { context, tabs, refreshes, pageErrors, initial } = await expiredSession(demo(), '');
      expect(await tabs[0]!.evaluate(() => window.gatehouseTest.locks)).toBe(true);

      const outcomes = await ticketsInAllTabs(tabs);

      expect(outcomes).toHaveLength(TABS * CALLS_PER_TAB);
      expect(outcomes).toEqual(outcomes.map(() => ({ status: 200, tickets: 1 })));
      expect(refreshes.count()).toBe(1);
      const refreshed = await tabs[0]!.evaluate(() => window.gatehouseTest.accessToken());
      expect(refreshed).not.toBe(initial);
      for (const tab of tabs)
        expect(await tab.evaluate(() => window.gatehouseTest.accessToken())).toBe(refreshed);

      // Reuse detection did not trip: the grant is alive, so the rotated refresh token still works.
      const again = await tabs[1]!.evaluate(
        async () => (await window.gatehouseTest.client.refresh()).accessToken,
      );
      expect(again).not.toBe(refreshed);
      expect(refreshes.count()).toBe(2);
      const after = await tabs[2]!.evaluate(() => window.gatehouseTest.ticketsAt(0, 1));
      expect(after).toEqual([{ status: 200, tickets: 1 }]);
      expect(pageErrors).toEqual([]);
      await context.close();
    }, 60_000);

    it('without Web Locks, two tabs trip reuse detection and the grant is revoked', async () => {
      const { context, tabs, refreshes } = await expiredSession(demo(), '?locks=off');
      expect(await tabs[0]!.evaluate(() => window.gatehouseTest.locks)).toBe(false);
      // Token requests are held back (never altered) so that every tab reads the expired set before
      // the first refresh lands: without the lock nothing else orders the tabs.
      await context.route('**/demo/oauth2/v1/token', async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        await route.continue();
      });

      const outcomes = await ticketsInAllTabs(tabs);

      // Each tab refreshed on its own with the same refresh token; the second use revoked the grant.
      expect(refreshes.count()).toBeGreaterThan(1);
      expect(outcomes.some((outcome) => outcome.status !== 200)).toBe(true);
      const refreshAgain = await tabs[0]!.evaluate(async () => {
        // Whatever token set a tab stored last, the grant behind it is gone.
        try {
          await window.gatehouseTest.client.refresh();
          return 'refreshed';
        } catch (error) {
          return (error as { code?: string; error?: string }).error ?? (error as { code?: string }).code;
        }
      });
      expect(['invalid_grant', 'no_token']).toContain(refreshAgain);
      await context.close();
    }, 60_000);
  },
);
