/**
 * Issue 29, item 6, in Chromium: an existing Express app with express-session and passport-local
 * and its own login page is the authorization server; a user signed in to the app gets codes
 * without a second login, and signing out of the app signs out of the authorization server.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import { authenticator } from 'otplib';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, MFA_ACR, SEED } from '../src/app';

const CHROMIUM = '/usr/bin/chromium';

describe.skipIf(!existsSync(CHROMIUM))(
  'an Express + Passport app as the authorization server (Chromium)',
  () => {
    let server: Server;
    let origin: string;
    let browser: Browser;

    beforeAll(async () => {
      server = createServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      origin = `http://localhost:${(server.address() as AddressInfo).port}`;
      const { app } = await createApp({ origin });
      server.on('request', app);
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--no-first-run',
        ],
      });
    }, 30_000);
    afterAll(async () => {
      await browser?.close();
      server?.closeAllConnections();
      await new Promise((resolve) => server?.close(resolve));
    });

    function authorize(params: Record<string, string> = {}) {
      const verifier = randomBytes(32).toString('base64url');
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: SEED.client.id,
        redirect_uri: `${origin}/callback`,
        scope: 'openid profile email',
        state: randomBytes(8).toString('hex'),
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
        ...params,
      });
      return { url: `${origin}/oauth/oauth2/v1/authorize?${query}`, verifier };
    }

    async function redeem(callbackUrl: string, verifier: string) {
      const code = new URL(callbackUrl).searchParams.get('code');
      expect(code).toBeTruthy();
      const response = await fetch(`${origin}/oauth/oauth2/v1/token`, {
        method: 'POST',
        headers: {
          Authorization: `Basic ${btoa(`${SEED.client.id}:${SEED.client.secret}`)}`,
          'Content-Type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: code!,
          redirect_uri: `${origin}/callback`,
          code_verifier: verifier,
        }),
      });
      expect(response.status).toBe(200);
      return (await response.json()) as { access_token: string; id_token: string };
    }

    it('signs in once on the app’s own page; then codes come with no page; sign-out ends both', async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      const visited: string[] = [];
      page.on('request', (request) => {
        if (request.isNavigationRequest()) visited.push(new URL(request.url()).pathname);
      });

      // 1. No session: the app's own login page (passport-local), then back to the client with a code.
      const first = authorize();
      await page.goto(first.url);
      expect(new URL(page.url()).pathname).toBe('/login');
      expect(await page.textContent('body')).toContain('Sign in to continue to Passport Demo Client');
      await page.fill('input[name=email]', SEED.user.email);
      await page.fill('input[name=password]', SEED.user.password);
      await Promise.all([page.waitForURL(/\/callback\?/), page.click('button[type=submit]')]);
      const tokens = await redeem(page.url(), first.verifier);
      expect(decodeJwt(tokens.id_token)).toMatchObject({ sub: 'u-1001', amr: ['pwd'], name: 'Ada Lovelace' });
      const userinfo = await fetch(`${origin}/oauth/oauth2/v1/userinfo`, {
        headers: { Authorization: `Bearer ${tokens.access_token}` },
      });
      expect(await userinfo.json()).toMatchObject({ sub: 'u-1001', email: SEED.user.email });

      // 2. Signed in to the app: the next authorization request gets its code without any page.
      visited.length = 0;
      const second = authorize();
      await page.goto(second.url);
      expect(new URL(page.url()).pathname).toBe('/callback');
      expect(visited).not.toContain('/login');
      await redeem(page.url(), second.verifier);

      // 3. The app's account page, and its sign-out: the authorization server signs out too.
      await page.goto(`${origin}/account`);
      expect(await page.textContent('#email')).toBe(SEED.user.email);
      await Promise.all([page.waitForURL(/\/login$/), page.click('button[type=submit]')]);
      await page.goto(authorize({ prompt: 'none' }).url);
      expect(new URL(page.url()).searchParams.get('error')).toBe('login_required');
      await context.close();
    });

    it('logs out RP-initiated (id_token_hint, both cookies) behind express-session: back to the client with state', async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      const request = authorize();
      await page.goto(request.url);
      await page.fill('input[name=email]', SEED.user.email);
      await page.fill('input[name=password]', SEED.user.password);
      await Promise.all([page.waitForURL(/\/callback\?/), page.click('button[type=submit]')]);
      const tokens = await redeem(page.url(), request.verifier);
      const cookies = (await context.cookies()).map((cookie) => cookie.name);
      expect(cookies).toEqual(expect.arrayContaining(['connect.sid', 'gatehouse_session']));

      // The answer is a 303 with no body, written through express-session's res.end wrapper.
      const logout = new URLSearchParams({
        id_token_hint: tokens.id_token,
        post_logout_redirect_uri: `${origin}/logged-out`,
        state: 'bye',
      });
      const answer = await page.goto(`${origin}/oauth/oauth2/v1/end-session?${logout}`);
      expect(answer?.status()).toBe(200);
      expect(page.url()).toBe(`${origin}/logged-out?state=bye`);
      expect(await page.textContent('body')).toContain('state=bye');
      expect((await context.cookies()).map((cookie) => cookie.name)).not.toContain('gatehouse_session');
      await context.close();
    });

    it('answers the consent step of prompt=consent on the app’s own page: Allow gives a code, Deny access_denied', async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      // Not signed in: the login step first, then the consent step, both on the app's page.
      const first = authorize({ prompt: 'consent', scope: 'openid profile email' });
      await page.goto(first.url);
      expect(new URL(page.url()).pathname).toBe('/login');
      await page.fill('input[name=email]', SEED.user.email);
      await page.fill('input[name=password]', SEED.user.password);
      await Promise.all([page.waitForURL(/\/login\?interaction=/), page.click('button[type=submit]')]);
      expect(await page.textContent('h1')).toBe('Allow Passport Demo Client to access your account?');
      expect(await page.$$eval('#scopes li', (items) => items.map((item) => item.textContent))).toEqual([
        'openid',
        'profile',
        'email',
      ]);
      await Promise.all([page.waitForURL(/\/callback\?/), page.click('button[value=allow]')]);
      const tokens = await redeem(page.url(), first.verifier);
      expect(decodeJwt(tokens.id_token).sub).toBe('u-1001');

      // Signed in: prompt=consent asks again, with no sign-in; Deny sends the client access_denied.
      const second = authorize({ prompt: 'consent' });
      await page.goto(second.url);
      expect(await page.textContent('h1')).toBe('Allow Passport Demo Client to access your account?');
      await Promise.all([page.waitForURL(/\/callback\?/), page.click('button[value=deny]')]);
      expect(new URL(page.url()).searchParams.get('error')).toBe('access_denied');
      await context.close();
    });

    it('signs a user in directly on the app (no OAuth) and then an authorization request needs no second login', async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${origin}/login`);
      await page.fill('input[name=email]', SEED.user.email);
      await page.fill('input[name=password]', SEED.user.password);
      await Promise.all([page.waitForURL(/\/account$/), page.click('button[type=submit]')]);
      const request = authorize({ prompt: 'none' });
      await page.goto(request.url);
      expect(new URL(page.url()).pathname).toBe('/callback');
      const tokens = await redeem(page.url(), request.verifier);
      expect(decodeJwt(tokens.id_token).auth_time).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
      await context.close();
    });

    it('keeps the app’s login failure on its own page', async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(authorize().url);
      await page.fill('input[name=email]', SEED.user.email);
      await page.fill('input[name=password]', 'wrong');
      await Promise.all([page.waitForURL(/failed=1/), page.click('button[type=submit]')]);
      expect(await page.textContent('body')).toContain('The email or password is incorrect.');
      expect(new URL(page.url()).searchParams.get('interaction')).toBeTruthy();
      await context.close();
    });

    it('asks for a TOTP after the password when acr_values asks for it: amr ["pwd", "otp"] and the acr', async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      // Signed in with the password only (a first client that did not ask for more).
      const plain = authorize();
      await page.goto(plain.url);
      await page.fill('input[name=email]', SEED.user.email);
      await page.fill('input[name=password]', SEED.user.password);
      await Promise.all([page.waitForURL(/\/callback\?/), page.click('button[type=submit]')]);
      const pwdOnly = decodeJwt((await redeem(page.url(), plain.verifier)).id_token);
      expect(pwdOnly.amr).toEqual(['pwd']);
      expect(pwdOnly.acr).toBeUndefined();

      // A client asking for MFA: the password sign-in is not enough; only the TOTP is asked.
      const none = authorize({ acr_values: MFA_ACR, prompt: 'none' });
      await page.goto(none.url);
      expect(new URL(page.url()).searchParams.get('error')).toBe('login_required');
      const strong = authorize({ acr_values: MFA_ACR });
      await page.goto(strong.url);
      expect(new URL(page.url()).pathname).toBe('/login/otp');
      const wrong = authenticator.generate(SEED.user.totpSecret) === '000000' ? '111111' : '000000';
      await page.fill('input[name=otp]', wrong);
      await Promise.all([page.waitForURL(/failed=1/), page.click('button[type=submit]')]);
      await page.fill('input[name=otp]', authenticator.generate(SEED.user.totpSecret));
      await Promise.all([page.waitForURL(/\/callback\?/), page.click('button[type=submit]')]);
      const mfa = decodeJwt((await redeem(page.url(), strong.verifier)).id_token);
      expect(mfa).toMatchObject({ sub: 'u-1001', amr: ['pwd', 'otp'], acr: MFA_ACR });

      // The session now has the second factor: the next request for it needs no page.
      const again = authorize({ acr_values: MFA_ACR, prompt: 'none' });
      await page.goto(again.url);
      expect(new URL(page.url()).pathname).toBe('/callback');
      expect(decodeJwt((await redeem(page.url(), again.verifier)).id_token).acr).toBe(MFA_ACR);
      await context.close();
    });
  },
);
