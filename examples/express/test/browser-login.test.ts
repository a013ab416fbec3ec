/**
 * End to end in real headless Chromium against the Express example server: the authorization code
 * flow of `demo-client` built with oauth4webapi (PKCE S256), the login page, the callback with
 * `code`, `state` and `iss`, the code exchange, userinfo refusing the (non-openid) bearer token and
 * answering the session cookie, and logout through the confirmation page. Saves a screenshot of the login page.
 */
import * as oauth from 'oauth4webapi';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifactPath, chromiumSkipReason, launchChromium } from './support/browser';
import { type DemoServer, startDemoServer } from './support/demo-server';

const skip = chromiumSkipReason('browser-login.test');
const insecure = { [oauth.allowInsecureRequests]: true } as const;

/** userinfo fetched by a script of the page (same origin as the instance), with cookies. */
function sessionUserinfo(page: Page): Promise<{ status: number; body: unknown }> {
  return page.evaluate(async () => {
    const response = await fetch('/demo/oauth2/v1/userinfo', {
      credentials: 'include',
      headers: { Accept: 'application/json' },
    });
    return { status: response.status, body: await response.json() };
  });
}

describe.skipIf(skip !== undefined)('login in a real browser', () => {
  let server: DemoServer;
  let browser: Browser;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startDemoServer(), launchChromium()]);
  }, 30_000);

  afterAll(async () => {
    await Promise.all([browser?.close(), server?.stop()]);
  });

  it('logs in through the login page, exchanges the code, and checks the session until logout', async () => {
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
    authorize.searchParams.set('client_id', client.client_id);
    authorize.searchParams.set('redirect_uri', redirectUri);
    authorize.searchParams.set('response_type', 'code');
    authorize.searchParams.set('scope', 'profile');
    authorize.searchParams.set('state', state);
    authorize.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
    authorize.searchParams.set('code_challenge_method', 'S256');

    const context = await browser.newContext({ viewport: { width: 390, height: 760 } });
    const page = await context.newPage();
    // The callback is answered by the test itself: the demo app's own callback script must not
    // consume the code, and a script-free page of the same origin is where the session check runs.
    await page.route(`${server.origin}/callback**`, (route) =>
      route.fulfill({
        status: 200,
        contentType: 'text/html',
        body: '<!doctype html><title>callback</title><p>callback</p>',
      }),
    );

    const login = await page.goto(authorize.href);
    expect(login?.status()).toBe(200);
    expect(login?.headers()['x-frame-options']).toBe('DENY');
    expect(await page.getByLabel('Username').isVisible()).toBe(true);
    expect(await page.getByLabel('Password').isVisible()).toBe(true);
    await page.screenshot({ path: artifactPath('login-page.png'), fullPage: true });

    await page.fill('input[name="username"]', 'demo');
    await page.fill('input[name="password"]', 'demo-password');
    await Promise.all([page.waitForURL(`${server.origin}/callback?**`), page.click('button[type="submit"]')]);

    const callback = new URL(page.url());
    expect(callback.searchParams.get('state')).toBe(state);
    expect(callback.searchParams.get('iss')).toBe(server.issuer);
    expect(callback.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const params = oauth.validateAuthResponse(as, client, callback, state); // checks iss too (RFC 9207)

    const tokenResponse = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.ClientSecretBasic('demo-secret'),
      params,
      redirectUri,
      verifier,
      insecure,
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, tokenResponse);
    expect(tokens.token_type).toBe('bearer');

    // A plain OAuth 2.0 token (no openid) is not for userinfo (OpenID Connect Core §5.3): 403.
    const bearer = await oauth.userInfoRequest(as, client, tokens.access_token, insecure);
    expect(bearer.status).toBe(403);
    expect(bearer.headers.get('www-authenticate')).toContain('scope="openid"');

    const withSession = await sessionUserinfo(page);
    expect(withSession.status).toBe(200);
    expect(withSession.body).toMatchObject({ sub: 'user-demo' });

    // Log out through the confirmation page, as a user would.
    const logoutPage = await page.goto(`${server.issuer}/logout`);
    expect(logoutPage?.status()).toBe(200);
    await Promise.all([page.waitForLoadState('load'), page.click('button[type="submit"]')]);
    expect(await page.textContent('h1')).toBe('Signed out');

    await page.goto(redirectUri);
    const afterLogout = await sessionUserinfo(page);
    expect(afterLogout.status).toBe(401);
    await context.close();
  });
});
