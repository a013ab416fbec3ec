/**
 * OpenID Connect acceptance, over HTTP against the Express example server (the demo instance) with
 * the user in real headless Chromium: openid-client v6 configured by discovery signs in as
 * `demo-third-party` (login, consent, ID token with nonce and `auth_time` against `max_age`,
 * userinfo's `sub` equal to the ID token's), `prompt=none` / `prompt=login` / `max_age=0`,
 * RP-initiated logout landing on `/logged-out` with the same `state`, and the consent form's CSRF
 * and same-origin checks.
 */
import * as client from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumSkipReason, launchChromium } from './support/browser';
import { type DemoServer, startDemoServer } from './support/demo-server';

const skip = chromiumSkipReason('browser-oidc.test');

describe.skipIf(skip !== undefined)('OpenID Connect with openid-client in a real browser', () => {
  let server: DemoServer;
  let browser: Browser;
  let config: client.Configuration;
  let redirectUri: string;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startDemoServer(), launchChromium()]);
    redirectUri = `${server.origin}/callback`;
    config = await client.discovery(
      new URL(server.issuer),
      'demo-third-party',
      undefined,
      client.ClientSecretBasic('demo-third-party-secret'),
      { execute: [client.allowInsecureRequests] },
    );
  }, 30_000);

  afterAll(async () => {
    await Promise.all([browser?.close(), server?.stop()]);
  });

  /** A browser context whose `/callback` is answered by the test (the relying party's side). */
  async function userAgent(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.route(`${server.origin}/callback**`, (route) =>
      route.fulfill({
        status: 200,
        contentType: 'text/html',
        body: '<!doctype html><title>callback</title>',
      }),
    );
    return { context, page };
  }

  /** An authorization request of the relying party, with PKCE, state and nonce. */
  async function authorizationRequest(parameters: Record<string, string> = {}) {
    const verifier = client.randomPKCECodeVerifier();
    const checks = {
      pkceCodeVerifier: verifier,
      expectedState: client.randomState(),
      expectedNonce: client.randomNonce(),
    };
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid profile email',
      state: checks.expectedState,
      nonce: checks.expectedNonce,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      ...parameters,
    });
    return { url, checks };
  }

  /** Goes to `url`; signs in and allows when asked; returns the callback URL and the pages seen. */
  async function signIn(page: Page, url: URL): Promise<{ callback: URL; pages: string[] }> {
    const pages: string[] = [];
    await page.goto(url.href);
    for (let step = 0; step < 3 && !page.url().startsWith(redirectUri); step++) {
      if (await page.locator('input[name="password"]').count()) {
        pages.push('login');
        await page.fill('input[name="username"]', 'demo');
        await page.fill('input[name="password"]', 'demo-password');
        await Promise.all([page.waitForLoadState('load'), page.click('button[type="submit"]')]);
      } else if (await page.locator('button[value="allow"]').count()) {
        pages.push('consent');
        await Promise.all([page.waitForLoadState('load'), page.click('button[value="allow"]')]);
      } else {
        throw new Error(`unexpected page at ${page.url()}: ${await page.content()}`);
      }
    }
    await page.waitForURL(`${redirectUri}?**`);
    return { callback: new URL(page.url()), pages };
  }

  it('signs in with discovery, validates the ID token (nonce, max_age → auth_time), and userinfo has its sub', async () => {
    const { context, page } = await userAgent();
    const { url, checks } = await authorizationRequest({ max_age: '300' });
    const { callback, pages } = await signIn(page, url);
    expect(pages).toEqual(['login', 'consent']);
    const tokens = await client.authorizationCodeGrant(config, callback, { ...checks, maxAge: 300 });
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({
      iss: server.issuer,
      sub: 'user-demo',
      aud: 'demo-third-party',
      nonce: checks.expectedNonce,
    });
    expect(claims.name).toBe('Demo User');
    expect(Math.abs((claims.auth_time as number) - Date.now() / 1000)).toBeLessThan(60);
    const header = JSON.parse(Buffer.from(tokens.id_token!.split('.')[0]!, 'base64url').toString());
    expect(header).toMatchObject({ alg: 'RS256', typ: 'JWT' });
    const userinfo = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
    expect(userinfo).toEqual({
      sub: claims.sub,
      name: 'Demo User',
      preferred_username: 'demo',
      email: 'demo@example.com',
      email_verified: true,
    });
    await context.close();
  });

  it('prompt=none answers without a page (a code with a session, login_required without); prompt=login and max_age=0 log in again', async () => {
    const anonymous = await userAgent();
    const none = await authorizationRequest({ prompt: 'none' });
    await anonymous.page.goto(none.url.href);
    await anonymous.page.waitForURL(`${redirectUri}?**`);
    const refused = new URL(anonymous.page.url()).searchParams;
    expect(refused.get('error')).toBe('login_required');
    expect(refused.get('state')).toBe(none.checks.expectedState);
    expect(refused.get('iss')).toBe(server.issuer);
    await anonymous.context.close();

    const { context, page } = await userAgent();
    const first = await authorizationRequest();
    const firstTokens = await client.authorizationCodeGrant(
      config,
      (await signIn(page, first.url)).callback,
      first.checks,
    );

    const silent = await authorizationRequest({ prompt: 'none' });
    const silentResult = await signIn(page, silent.url);
    expect(silentResult.pages).toEqual([]);
    const silentTokens = await client.authorizationCodeGrant(config, silentResult.callback, silent.checks);
    expect(silentTokens.claims()!.sub).toBe(firstTokens.claims()!.sub);

    const forcedLogins: Record<string, string>[] = [{ prompt: 'login' }, { max_age: '0' }];
    for (const parameters of forcedLogins) {
      const again = await authorizationRequest(parameters);
      const result = await signIn(page, again.url);
      expect(result.pages, JSON.stringify(parameters)).toEqual(['login']);
      const tokens = await client.authorizationCodeGrant(config, result.callback, {
        ...again.checks,
        ...('max_age' in parameters ? { maxAge: 0 } : {}),
      });
      expect(tokens.claims()!.auth_time).toBeGreaterThanOrEqual(firstTokens.claims()!.auth_time as number);
    }
    await context.close();
  });

  it('RP-initiated logout ends the session and lands on the registered URI with the same state', async () => {
    const { context, page } = await userAgent();
    const request = await authorizationRequest();
    const tokens = await client.authorizationCodeGrant(
      config,
      (await signIn(page, request.url)).callback,
      request.checks,
    );
    const state = client.randomState();
    const endSession = client.buildEndSessionUrl(config, {
      id_token_hint: tokens.id_token!,
      post_logout_redirect_uri: `${server.origin}/logged-out`,
      state,
    });
    await page.goto(endSession.href);
    await page.waitForURL(`${server.origin}/logged-out?**`);
    expect(new URL(page.url()).searchParams.get('state')).toBe(state);
    expect(await page.textContent('h1')).toBe('Signed out');
    const none = await authorizationRequest({ prompt: 'none' });
    await page.goto(none.url.href);
    await page.waitForURL(`${redirectUri}?**`);
    expect(new URL(page.url()).searchParams.get('error')).toBe('login_required');
    await context.close();
  });

  it('says on the consent page what each scope allows, tickets:read included, in words', async () => {
    const { context, page } = await userAgent();
    const { url } = await authorizationRequest({ scope: 'openid tickets:read' });
    await page.goto(url.href);
    await page.fill('input[name="username"]', 'demo');
    await page.fill('input[name="password"]', 'demo-password');
    await Promise.all([page.waitForLoadState('load'), page.click('button[type="submit"]')]);
    const items = await page.$$eval('ul.scopes li', (lis) =>
      lis.map((li) => [li.getAttribute('title'), li.textContent]),
    );
    expect(items).toEqual([
      ['openid', 'Know who you are: an identifier of your account'],
      ['tickets:read', 'Read your support tickets'],
    ]);
    await context.close();
  });

  it('the consent form of demo-third-party requires its CSRF token and the issuer origin', async () => {
    const { context, page } = await userAgent();
    const request = await authorizationRequest({ scope: 'openid email offline_access' });
    await page.goto(request.url.href);
    await page.fill('input[name="username"]', 'demo');
    await page.fill('input[name="password"]', 'demo-password');
    await Promise.all([page.waitForLoadState('load'), page.click('button[type="submit"]')]);
    expect(await page.textContent('h1')).toBe('Allow access?');
    expect(await page.textContent('body')).toContain('Your email address');
    const fields = await page.$$eval('form input[type="hidden"]', (inputs) =>
      Object.fromEntries(
        inputs.map((input) => [(input as HTMLInputElement).name, (input as HTMLInputElement).value]),
      ),
    );
    expect(fields.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const consentUrl = `${server.issuer}/consent`;

    // The right token, posted by a page of another origin: refused.
    const evil = await context.newPage();
    await evil.route('http://evil.test/**', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'text/html',
        body: `<!doctype html><form method="post" action="${consentUrl}">${Object.entries({
          ...fields,
          decision: 'allow',
        })
          .map(
            ([name, value]) =>
              `<input type="hidden" name="${name}" value="${value.replace(/"/g, '&quot;')}">`,
          )
          .join('')}<button>go</button></form>`,
      }),
    );
    await evil.goto('http://evil.test/');
    const [crossSite] = await Promise.all([evil.waitForResponse(consentUrl), evil.click('button')]);
    expect(crossSite.status()).toBe(403);

    // The page itself, but with a wrong token: refused.
    await page.$eval('input[name="csrf_token"]', (input) => {
      (input as HTMLInputElement).value = 'A'.repeat(43);
    });
    const [wrongToken] = await Promise.all([
      page.waitForResponse(consentUrl),
      page.click('button[value="allow"]'),
    ]);
    expect(wrongToken.status()).toBe(403);

    // The page itself, as served: allowed.
    await page.goto(request.url.href);
    await Promise.all([page.waitForURL(`${redirectUri}?**`), page.click('button[value="allow"]')]);
    await client.authorizationCodeGrant(config, new URL(page.url()), request.checks);
    await context.close();
  });
});
