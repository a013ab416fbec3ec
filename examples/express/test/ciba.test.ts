/**
 * Backchannel authentication (OpenID CIBA Core 1.0, poll mode) over HTTP against the Express
 * example server (the demo instance), as an agent runs it: the seeded client `demo-ciba` asks for
 * the demo user's approval (`login_hint=demo`, a binding message), polls too fast (`slow_down`),
 * is told to wait (`authorization_pending`), while the user, in real headless Chromium, signs in
 * on the approval page `{issuer}/approvals`, finds the request by its binding message and clicks
 * "Allow" (or "Deny"); the agent then gets its tokens with an ID token (verified by openid-client),
 * or `access_denied`.
 */
import * as client from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumSkipReason, launchChromium } from './support/browser';
import { type DemoServer, startDemoServer } from './support/demo-server';

const skip = chromiumSkipReason('ciba.test');
const CIBA = 'urn:openid:params:grant-type:ciba';
const SCOPE = 'openid profile tickets:read';

/** Waits `seconds` of real time (the polling interval the server enforces), never asserting on time. */
const wait = (seconds: number) => new Promise((done) => setTimeout(done, seconds * 1000));

describe.skipIf(skip !== undefined)('CIBA with a real browser approving on the approval page', () => {
  let server: DemoServer;
  let browser: Browser;
  let config: client.Configuration;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startDemoServer(), launchChromium()]);
    config = await client.discovery(
      new URL(server.issuer),
      'demo-ciba',
      undefined,
      client.ClientSecretBasic('demo-ciba-secret'),
      { execute: [client.allowInsecureRequests] },
    );
  }, 30_000);

  afterAll(async () => {
    await Promise.all([browser?.close(), server?.stop()]);
  });

  /** A raw token request of the CIBA grant, as `demo-ciba`: its status and error. */
  async function rawPoll(authReqId: string): Promise<{ status: number; error?: string }> {
    const response = await fetch(`${server.issuer}/oauth2/v1/token`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: `Basic ${btoa('demo-ciba:demo-ciba-secret')}`,
      },
      body: new URLSearchParams({ grant_type: CIBA, auth_req_id: authReqId }),
    });
    const body = (await response.json()) as { error?: string };
    return { status: response.status, ...(body.error === undefined ? {} : { error: body.error }) };
  }

  /** The user's side: the approval page (signing in first), the request by its message, a click. */
  async function decideOnPage(page: Page, bindingMessage: string, decision: 'Allow' | 'Deny') {
    await page.goto(`${server.issuer}/approvals`);
    await page.fill('input[name="username"]', 'demo');
    await page.fill('input[name="password"]', 'demo-password');
    await Promise.all([page.waitForURL(`${server.issuer}/approvals`), page.click('button[type="submit"]')]);
    const request = page.locator('section.request', { hasText: bindingMessage });
    expect(await request.locator('.binding-message').textContent()).toBe(bindingMessage);
    expect(await request.textContent()).toContain('Demo Agent (backchannel authentication)');
    await Promise.all([
      page.waitForLoadState('load'),
      request.getByRole('button', { name: decision, exact: true }).click(),
    ]);
    expect(await page.locator('section.request', { hasText: bindingMessage }).count()).toBe(0);
    return page.textContent('main');
  }

  it('goes from pending and slow_down to tokens with an ID token once the user allows', async () => {
    const metadata = config.serverMetadata();
    expect(metadata.backchannel_authentication_endpoint).toBe(
      `${server.issuer}/oauth2/v1/backchannel_authentication`,
    );
    expect(metadata.backchannel_token_delivery_modes_supported).toEqual(['poll', 'ping']);
    const message = `Order ${crypto.randomUUID().slice(0, 6)}`;
    const started = await client.initiateBackchannelAuthentication(config, {
      scope: SCOPE,
      login_hint: 'demo',
      binding_message: message,
    });
    expect(started.expires_in).toBeGreaterThan(0);
    const interval = started.interval ?? 5;
    // Polling at once is too fast; polling after the interval finds the request pending.
    expect(await rawPoll(started.auth_req_id)).toEqual({ status: 400, error: 'slow_down' });
    await wait(interval + 5);
    expect(await rawPoll(started.auth_req_id)).toEqual({ status: 400, error: 'authorization_pending' });

    const context = await browser.newContext();
    const done = await decideOnPage(await context.newPage(), message, 'Allow');
    expect(done).toContain('The request was allowed.');
    await context.close();

    // openid-client polls (after the interval) and validates the ID token.
    const tokens = await client.pollBackchannelAuthenticationGrant(config, started);
    expect(tokens.scope).toBe(SCOPE);
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({ iss: server.issuer, sub: 'user-demo', name: 'Demo User' });
    expect([claims.aud].flat()).toContain('demo-ciba');
    const userinfo = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
    expect(userinfo.sub).toBe('user-demo');
    // Redeemed: once only.
    expect(await rawPoll(started.auth_req_id)).toEqual({ status: 400, error: 'invalid_grant' });
  }, 90_000);

  it('ends with access_denied when the user denies', async () => {
    const message = `Deny ${crypto.randomUUID().slice(0, 6)}`;
    const started = await client.initiateBackchannelAuthentication(config, {
      scope: 'openid',
      login_hint: 'demo',
      binding_message: message,
    });
    const context = await browser.newContext();
    const done = await decideOnPage(await context.newPage(), message, 'Deny');
    expect(done).toContain('The request was denied.');
    await context.close();
    await expect(client.pollBackchannelAuthenticationGrant(config, started)).rejects.toMatchObject({
      error: 'access_denied',
    });
  }, 60_000);

  it('refuses a login_hint that names nobody with unknown_user_id', async () => {
    await expect(
      client.initiateBackchannelAuthentication(config, { scope: 'openid', login_hint: 'nobody' }),
    ).rejects.toMatchObject({ error: 'unknown_user_id' });
  });
});
