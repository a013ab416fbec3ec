/**
 * Issue 18 over HTTP, against the Express example (`pnpm start`): its two instances `demo` and
 * `acme` share client ids, secrets, the redirect URI, the username and the password, and differ in
 * keys and user ids. Nothing of one works at the other: access tokens (userinfo, the tickets API),
 * codes, refresh tokens, revocation, rate limits, and, in one real Chromium profile, sessions.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumSkipReason, launchChromium } from './support/browser';
import { type DemoServer, startDemoServer } from './support/demo-server';

const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const CLIENT = `Basic ${btoa('demo-client:demo-secret')}`;

describe('two instances of one host (demo, acme)', () => {
  let server: DemoServer;
  const at = (name: string, path: string) => `${server.origin}/${name}${path}`;

  beforeAll(async () => {
    server = await startDemoServer();
  }, 30_000);

  afterAll(async () => {
    await server?.stop();
  });

  async function authApiToken(name: string, password = 'demo-password'): Promise<Response> {
    return fetch(at(name, '/auth/v1/token'), {
      method: 'POST',
      headers: { Authorization: `Basic ${btoa(`demo:${password}`)}` },
    });
  }

  async function accessToken(name: string): Promise<string> {
    const response = await authApiToken(name);
    expect(response.status).toBe(200);
    return ((await response.json()) as { access_token: string }).access_token;
  }

  const userinfo = (name: string, token: string) =>
    fetch(at(name, '/oauth2/v1/userinfo'), { headers: { Authorization: `Bearer ${token}` } });

  const tickets = (name: string, token: string) =>
    fetch(at(name, '/api/v1/tickets'), {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: '{"limit":1}',
    });

  const tokenRequest = (name: string, form: Record<string, string>) =>
    fetch(at(name, '/oauth2/v1/token'), {
      method: 'POST',
      headers: { Authorization: CLIENT, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });

  it('serves both metadata documents at the RFC 8414 §3 locations', async () => {
    for (const name of ['demo', 'acme']) {
      const response = await fetch(`${server.origin}/.well-known/oauth-authorization-server/${name}`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ issuer: `${server.origin}/${name}` });
    }
    expect((await fetch(`${server.origin}/.well-known/oauth-authorization-server/nobody`)).status).toBe(404);
  });

  it('an access token of one instance is 401 invalid_token at the other’s userinfo and tickets API', async () => {
    const demo = await accessToken('demo');
    const acme = await accessToken('acme');
    // At its own instance each token is valid: userinfo answers 403 insufficient_scope (an Auth
    // API token is not granted openid, OpenID Connect Core §5.3), never 401, and tickets 200.
    for (const [name, token] of [
      ['demo', demo],
      ['acme', acme],
    ] as const) {
      const own = await userinfo(name, token);
      expect(own.status).toBe(403);
      expect(own.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
      expect((await tickets(name, token)).status).toBe(200);
    }
    for (const [name, token] of [
      ['acme', demo],
      ['demo', acme],
    ] as const) {
      for (const response of [await userinfo(name, token), await tickets(name, token)]) {
        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
      }
    }
    expect((await tickets('acme', acme)).status).toBe(200);
  });

  it('revocation at one instance leaves the other’s tokens active', async () => {
    const demo = await accessToken('demo');
    const acme = await accessToken('acme');
    const revoke = await fetch(at('acme', '/auth/v1/token/revoke'), {
      method: 'POST',
      headers: { Authorization: `Bearer ${acme}` },
    });
    expect(revoke.status).toBe(200);
    expect((await userinfo('acme', acme)).status).toBe(401);
    expect((await tickets('acme', acme)).status).toBe(401);
    expect((await tickets('demo', demo)).status).toBe(200);
  });

  describe.skipIf(chromiumSkipReason('instance-isolation.test') !== undefined)('in one browser', () => {
    let browser: Browser;

    beforeAll(async () => {
      browser = await launchChromium();
    }, 30_000);

    afterAll(async () => {
      await browser?.close();
    });

    /** Signs in at `name`'s login page and returns the code the callback received. */
    async function signIn(page: Page, name: string): Promise<string> {
      const authorize = new URL(at(name, '/oauth2/v1/authorize'));
      for (const [k, v] of Object.entries({
        response_type: 'code',
        client_id: 'demo-client',
        redirect_uri: `${server.origin}/callback`,
        scope: 'profile offline_access',
        state: name,
        code_challenge: CHALLENGE,
        code_challenge_method: 'S256',
      }))
        authorize.searchParams.set(k, v);
      await page.goto(authorize.href);
      await page.fill('input[name="username"]', 'demo');
      await page.fill('input[name="password"]', 'demo-password');
      await Promise.all([
        page.waitForURL(`${server.origin}/callback?**`),
        page.click('button[type="submit"]'),
      ]);
      const code = new URL(page.url()).searchParams.get('code');
      expect(code).toBeTruthy();
      return code!;
    }

    /** userinfo of `name` with the browser's cookies (a same-origin script). */
    function sessionUserinfo(page: Page, name: string): Promise<{ status: number; body: unknown }> {
      return page.evaluate(async (path) => {
        const response = await fetch(path, {
          credentials: 'include',
          headers: { Accept: 'application/json' },
        });
        return { status: response.status, body: await response.json() };
      }, `/${name}/oauth2/v1/userinfo`);
    }

    it('signs in to both as different users; codes and refresh tokens stay with their instance; logout of one leaves the other', async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.route(`${server.origin}/callback**`, (route) =>
        route.fulfill({
          status: 200,
          contentType: 'text/html',
          body: '<!doctype html><title>callback</title>',
        }),
      );
      const demoCode = await signIn(page, 'demo');
      const acmeCode = await signIn(page, 'acme');

      const cookies = (await context.cookies()).filter((c) => c.name === 'gatehouse_session');
      expect(cookies.map((c) => c.path).sort()).toEqual(['/acme', '/demo']);
      expect((await sessionUserinfo(page, 'demo')).body).toMatchObject({ sub: 'user-demo' });
      expect((await sessionUserinfo(page, 'acme')).body).toMatchObject({ sub: 'user-acme' });

      // A code of demo presented at acme (same client, secret and redirect URI): invalid_grant.
      const redeem = (name: string, code: string) =>
        tokenRequest(name, {
          grant_type: 'authorization_code',
          code,
          redirect_uri: `${server.origin}/callback`,
          code_verifier: VERIFIER,
        });
      const crossCode = await redeem('acme', demoCode);
      expect(crossCode.status).toBe(400);
      expect(await crossCode.json()).toMatchObject({ error: 'invalid_grant' });
      const demoTokens = await redeem('demo', demoCode);
      expect(demoTokens.status).toBe(200);
      expect((await redeem('acme', acmeCode)).status).toBe(200);
      const { refresh_token } = (await demoTokens.json()) as { refresh_token: string };
      expect(refresh_token).toBeTruthy();
      const crossRefresh = await tokenRequest('acme', { grant_type: 'refresh_token', refresh_token });
      expect(crossRefresh.status).toBe(400);
      expect(await crossRefresh.json()).toMatchObject({ error: 'invalid_grant' });
      expect((await tokenRequest('demo', { grant_type: 'refresh_token', refresh_token })).status).toBe(200);

      // Log out of demo through its confirmation page: acme's session stays.
      await page.goto(at('demo', '/logout'));
      await Promise.all([page.waitForLoadState('load'), page.click('button[type="submit"]')]);
      expect(await page.textContent('h1')).toBe('Signed out');
      await page.goto(`${server.origin}/callback`);
      expect((await sessionUserinfo(page, 'demo')).status).toBe(401);
      expect((await sessionUserinfo(page, 'acme')).body).toMatchObject({ sub: 'user-acme' });
      await context.close();
    }, 60_000);
  });

  // Last: it locks the username out of acme for the rest of the window.
  it('rate limits of one instance do not lock out the other', async () => {
    // Five failures lock the username at acme (the default maxFailuresPerUsername)…
    for (let i = 0; i < 6; i++) await authApiToken('acme', `wrong-${i}`);
    expect((await authApiToken('acme')).status).toBe(429);
    // …and the same username at demo signs in.
    expect((await authApiToken('demo')).status).toBe(200);
  });
});
