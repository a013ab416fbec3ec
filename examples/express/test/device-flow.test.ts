/**
 * The device authorization grant (RFC 8628) over HTTP against the Express example server (the demo
 * instance), as a third-party client runs it: openid-client v6, configured by discovery as the
 * seeded public client `demo-cli`, starts a device authorization and polls
 * (`initiateDeviceAuthorization` + `pollDeviceAuthorizationGrant`), while the user, in real
 * headless Chromium, opens `verification_uri_complete`, submits the prefilled code, signs in on the
 * instance's login page and allows (or denies) on the confirmation page.
 */
import * as client from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumSkipReason, launchChromium } from './support/browser';
import { type DemoServer, startDemoServer } from './support/demo-server';

const skip = chromiumSkipReason('device-flow.test');
const SCOPE = 'openid profile offline_access tickets:read';

describe.skipIf(skip !== undefined)('device authorization grant with openid-client in a real browser', () => {
  let server: DemoServer;
  let browser: Browser;
  let config: client.Configuration;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startDemoServer(), launchChromium()]);
    config = await client.discovery(new URL(server.issuer), 'demo-cli', undefined, client.None(), {
      execute: [client.allowInsecureRequests],
    });
  }, 30_000);

  afterAll(async () => {
    await Promise.all([browser?.close(), server?.stop()]);
  });

  /** The user's side: the code form (prefilled), the login page, the confirmation; returns the last page. */
  async function confirmOnPage(
    page: Page,
    device: client.DeviceAuthorizationResponse,
    decision: 'Allow' | 'Deny',
  ) {
    await page.goto(device.verification_uri_complete!);
    expect(await page.inputValue('input[name="user_code"]')).toBe(device.user_code);
    await Promise.all([page.waitForLoadState('load'), page.click('button[type="submit"]')]);
    await page.fill('input[name="username"]', 'demo');
    await page.fill('input[name="password"]', 'demo-password');
    await Promise.all([page.waitForURL('**/device/confirm?**'), page.click('button[type="submit"]')]);
    const confirmation = await page.textContent('main');
    expect(confirmation).toContain(device.user_code);
    expect(confirmation).toContain('Gatehouse Demo CLI');
    expect(confirmation).toMatch(/code shown on your device/);
    await Promise.all([page.waitForLoadState('load'), page.click(`button:text-matches("^${decision}")`)]);
    expect(await page.locator('form').count()).toBe(0);
    return page.textContent('main');
  }

  it('gets access, refresh and ID tokens once the user allows', async () => {
    const device = await client.initiateDeviceAuthorization(config, { scope: SCOPE });
    expect(device.verification_uri).toBe(`${server.issuer}/device`);
    expect(device.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    const polling = client.pollDeviceAuthorizationGrant(config, device);
    const context = await browser.newContext();
    const done = await confirmOnPage(await context.newPage(), device, 'Allow');
    expect(done).toContain('Device connected');
    const tokens = await polling;
    expect(tokens.scope).toBe(SCOPE);
    expect(tokens.refresh_token).toBeTruthy();
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({ iss: server.issuer, sub: 'user-demo', name: 'Demo User' });
    expect([claims.aud].flat()).toContain('demo-cli');
    const userinfo = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
    expect(userinfo.sub).toBe('user-demo');
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).toBeTruthy();
    // The device code was redeemed: polling it again is refused.
    await expect(
      client.genericGrantRequest(config, 'urn:ietf:params:oauth:grant-type:device_code', {
        device_code: device.device_code,
      }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
    await context.close();
  }, 60_000);

  it('ends with access_denied when the user denies', async () => {
    const device = await client.initiateDeviceAuthorization(config, { scope: 'openid' });
    const polling = client.pollDeviceAuthorizationGrant(config, device).then(
      () => 'tokens',
      (error: { error?: string }) => error.error,
    );
    const context = await browser.newContext();
    const done = await confirmOnPage(await context.newPage(), device, 'Deny');
    expect(done).toContain('Access denied');
    expect(await polling).toBe('access_denied');
    await context.close();
  }, 60_000);
});
