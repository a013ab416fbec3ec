/**
 * Issue 29, item 6, in Chromium: the built Next.js example (`next start`) has its own sign-in page
 * (`/login`, App Router, a server action) and its own session; its OpenID Provider at `/accounts`
 * hands sign-in to that page, and a browser signed in to the app gets codes with no page.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNTS } from '../../next/src/lib/accounts';
import { type RunningTarget, startTarget } from '../src/harness.js';
import { TARGETS } from '../src/targets.js';

const CHROMIUM = '/usr/bin/chromium';

/** The claims of a JWT (no verification: the token came straight from the token endpoint). */
const decodeJwt = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;

describe.skipIf(!existsSync(CHROMIUM))(
  'next: the app’s own sign-in page completes interactions (Chromium)',
  () => {
    let server: RunningTarget;
    let browser: Browser;
    const issuer = () => server.origin + ACCOUNTS.instancePath;

    beforeAll(async () => {
      server = await startTarget(TARGETS.next);
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
    }, 120_000);
    afterAll(async () => {
      await browser?.close();
      await server?.stop();
    });

    function authorize(params: Record<string, string> = {}) {
      const verifier = randomBytes(32).toString('base64url');
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: ACCOUNTS.client.id,
        redirect_uri: `${server.origin}/callback`,
        scope: 'openid profile email',
        state: randomBytes(8).toString('hex'),
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
        ...params,
      });
      return { url: `${issuer()}/oauth2/v1/authorize?${query}`, verifier };
    }

    async function redeem(callbackUrl: string, verifier: string) {
      const code = new URL(callbackUrl).searchParams.get('code');
      expect(code, callbackUrl).toBeTruthy();
      const response = await fetch(`${issuer()}/oauth2/v1/token`, {
        method: 'POST',
        headers: {
          Authorization: `Basic ${btoa(`${ACCOUNTS.client.id}:${ACCOUNTS.client.secret}`)}`,
          'Content-Type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: code!,
          redirect_uri: `${server.origin}/callback`,
          code_verifier: verifier,
        }),
      });
      expect(response.status).toBe(200);
      return (await response.json()) as { access_token: string; id_token: string };
    }

    it('signs in on the app’s page, resumes with a code, then gives codes with no page', async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      const first = authorize();
      await page.goto(first.url);
      expect(new URL(page.url()).pathname).toBe('/login');
      expect(await page.textContent('body')).toContain('Sign in to continue to Accounts Client');
      await page.fill('input[name=email]', ACCOUNTS.user.email);
      await page.fill('input[name=password]', ACCOUNTS.user.password);
      await Promise.all([page.waitForURL(/\/callback\?/), page.click('button[type=submit]')]);
      const tokens = await redeem(page.url(), first.verifier);
      expect(decodeJwt(tokens.id_token)).toMatchObject({
        iss: issuer(),
        sub: 'grace',
        amr: ['pwd'],
        name: ACCOUNTS.user.name,
      });

      const second = authorize({ prompt: 'none' });
      await page.goto(second.url);
      expect(new URL(page.url()).pathname).toBe('/callback');
      await redeem(page.url(), second.verifier);
      await context.close();
    });

    it('answers prompt=none without an app session with login_required', async () => {
      const response = await fetch(authorize({ prompt: 'none' }).url, { redirect: 'manual' });
      expect(response.status).toBe(303);
      expect(new URL(response.headers.get('location')!).searchParams.get('error')).toBe('login_required');
    });
  },
);
