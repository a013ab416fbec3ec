/**
 * `@gatehousejs/client` with DPoP and pushed requests in headless Chromium against the Express
 * example server (`pnpm start`'s): the key is created non-extractable and kept in IndexedDB, so a
 * page reload keeps it (and the tokens bound to it keep working); the sign-in is pushed; the
 * tickets API is called with `Authorization: DPoP` and a proof.
 */
import { describe, expect, it } from 'vitest';
import type { GatehouseDpopPage } from '../src/browser/dpop';
import { chromiumSkipReason } from './support/browser';
import { withBundledDemo } from './support/bundled-demo';

declare global {
  interface Window {
    gatehouseDpop: GatehouseDpopPage;
  }
}

const skipReason = chromiumSkipReason('browser-dpop.test');

describe.skipIf(skipReason !== undefined)('DPoP in the browser client (Chromium)', () => {
  const demo = withBundledDemo();

  it('keeps a non-extractable key across a reload, and its DPoP-bound tokens work with proofs', async () => {
    const { browser, origin } = demo();
    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${origin}/dpop.html`);
    await page.waitForSelector('body[data-ready="yes"]');

    const url = await page.evaluate(() => window.gatehouseDpop.authorizationUrl());
    expect([...new URL(url).searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    const key = await page.evaluate(() => window.gatehouseDpop.key());
    expect(key).toMatchObject({ extractable: false, exportRefused: true });

    await page.goto(url);
    await page.fill('input[name=username]', 'demo');
    await page.fill('input[name=password]', 'demo-password');
    await Promise.all([page.waitForURL(`${origin}/callback?**`), page.click('button[type=submit]')]);
    const callback = page.url();
    await page.goto(`${origin}/dpop.html`);
    await page.waitForSelector('body[data-ready="yes"]');
    const signedIn = await page.evaluate((at) => window.gatehouseDpop.handleCallback(at), callback);
    expect(signedIn).toEqual({ tokenType: 'DPoP', jkt: key!.jkt });
    expect(await page.evaluate(() => window.gatehouseDpop.tickets())).toEqual({
      status: 200,
      tickets: 2,
      authorization: 'DPoP',
    });

    await page.reload();
    await page.waitForSelector('body[data-ready="yes"]');
    expect(await page.evaluate(() => window.gatehouseDpop.key())).toEqual(key);
    expect((await page.evaluate(() => window.gatehouseDpop.tickets())).status).toBe(200);
    // The public client's refresh token is bound to the same key, which survived the reload.
    expect(await page.evaluate(() => window.gatehouseDpop.refresh())).toBe(key!.jkt);
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
