/**
 * Third-party relying-party libraries signing in with the demo instance, over HTTP, the user in
 * headless Chromium: Auth.js (`@auth/core`, an `oidc` provider configured with the issuer only:
 * everything else comes from discovery) and passport-openidconnect (configured with the endpoints
 * of the discovery document; it sends its secret in the body, so its client is registered for
 * `client_secret_post`). The demo instance is the one of `createDemo`, served by Express in this
 * process, with each relying party registered as a third-party client for its own callback URL (so
 * the consent page appears), as its operator would register it.
 */
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { Auth, type AuthConfig } from '@auth/core';
import { hashClientSecret, memoryClientStore } from '@gatehousejs/core';
import { createDemo, DEMO } from '@gatehousejs/demo';
import { gatehouse } from '@gatehousejs/express';
import express from 'express';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumSkipReason, launchChromium } from './support/browser';
import { freePort } from './support/demo-server';

const skip = chromiumSkipReason('relying-parties.test');

/** Runs a Web `Request → Response` handler as Express middleware (what an Auth.js adapter does). */
function webHandler(handle: (request: Request) => Promise<Response>): express.RequestHandler {
  return async (req, res, next) => {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers))
        if (typeof value === 'string') headers.set(name, value);
        else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      const response = await handle(
        new Request(`http://${req.headers.host}${req.originalUrl}`, { method: req.method, headers, body }),
      );
      res.status(response.status);
      for (const [name, value] of response.headers) if (name !== 'set-cookie') res.setHeader(name, value);
      const cookies = response.headers.getSetCookie();
      if (cookies.length > 0) res.setHeader('Set-Cookie', cookies);
      res.end(Buffer.from(await response.arrayBuffer()));
    } catch (error) {
      next(error);
    }
  };
}

/**
 * passport-openidconnect on the app: `/passport/login` starts the sign-in, `/passport/callback`
 * completes it, `/passport/me` answers the signed-in user. Loaded with `require` (CommonJS
 * packages without type declarations).
 */
async function mountPassport(app: express.Express, issuer: string, origin: string): Promise<void> {
  const require = createRequire(import.meta.url);
  const passport = require('passport');
  const session = require('express-session');
  const OpenIDConnectStrategy = require('passport-openidconnect');
  const discovery = await (await fetch(`${issuer}/.well-known/openid-configuration`)).json();
  passport.use(
    new OpenIDConnectStrategy(
      {
        issuer: discovery.issuer,
        authorizationURL: discovery.authorization_endpoint,
        tokenURL: discovery.token_endpoint,
        userInfoURL: discovery.userinfo_endpoint,
        clientID: 'passport-app',
        clientSecret: 'passport-secret',
        callbackURL: `${origin}/passport/callback`,
        scope: ['profile', 'email'],
        nonce: true,
      },
      (_issuer: string, profile: unknown, done: (error: unknown, user?: unknown) => void) =>
        done(null, profile),
    ),
  );
  passport.serializeUser((user: unknown, done: (error: unknown, id?: unknown) => void) => done(null, user));
  passport.deserializeUser((user: unknown, done: (error: unknown, user?: unknown) => void) =>
    done(null, user),
  );
  app.use('/passport', session({ secret: 'a-test-secret', resave: false, saveUninitialized: false }));
  app.use('/passport', passport.session());
  app.get('/passport/login', passport.authenticate('openidconnect'));
  app.get(
    '/passport/callback',
    passport.authenticate('openidconnect', { failureRedirect: '/passport/failed', failureMessage: true }),
    (_req: express.Request, res: express.Response) => res.redirect('/passport/me'),
  );
  app.get('/passport/me', (req: express.Request, res: express.Response) => {
    res.json({ user: (req as { user?: unknown }).user ?? null });
  });
  app.get('/passport/failed', (req: express.Request, res: express.Response) => {
    res.status(401).json({ messages: (req as { session?: { messages?: unknown } }).session?.messages });
  });
}

/** The authorization requests `page` makes (the login page's URL is the interaction's, not theirs). */
function authorizeRequestsOf(page: Page): URL[] {
  const seen: URL[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname.endsWith('/oauth2/v1/authorize')) seen.push(url);
  });
  return seen;
}

describe.skipIf(skip !== undefined)('relying-party libraries', () => {
  let browser: Browser;
  let server: Server;
  let origin: string;
  let issuer: string;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://localhost:${port}`;
    const demo = await createDemo({
      port,
      warn: () => {},
      overrides: {
        clients: memoryClientStore([
          {
            id: 'authjs-app',
            name: 'Auth.js App',
            type: 'confidential',
            secretHash: await hashClientSecret('authjs-secret'),
            redirectUris: [`${origin}/auth/callback/gatehouse`],
          },
          {
            id: 'passport-app',
            name: 'Passport App',
            type: 'confidential',
            secretHash: await hashClientSecret('passport-secret'),
            redirectUris: [`${origin}/passport/callback`],
            tokenEndpointAuthMethod: 'client_secret_post',
          },
        ]),
      },
    });
    issuer = demo.issuer;
    const authConfig: AuthConfig = {
      basePath: '/auth',
      secret: 'a-test-secret-of-at-least-32-characters!',
      trustHost: true,
      providers: [
        {
          id: 'gatehouse',
          name: 'Gatehouse',
          type: 'oidc',
          issuer,
          clientId: 'authjs-app',
          clientSecret: 'authjs-secret',
        },
      ],
    };
    const app = express();
    app.use('/demo', gatehouse(demo.gatehouse));
    app.use(
      '/auth',
      webHandler((request) => Auth(request, authConfig)),
    );
    app.get('/', (_req, res) => {
      res.type('html').send('<!doctype html><title>home</title><p>home</p>');
    });
    browser = await launchChromium();
    await new Promise<void>((resolve) => {
      server = app.listen(port, '127.0.0.1', () => resolve());
    });
    // Configured from the discovery document, which the listening instance serves.
    await mountPassport(app, issuer, origin);
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('Auth.js (type "oidc", issuer only) signs in through login and consent, with the claims of the ID token', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const authorizeRequests = authorizeRequestsOf(page);
    await page.goto(`${origin}/auth/signin`);
    // The authorization request, then the login page of its sign-in interaction.
    await Promise.all([page.waitForURL(`${issuer}/login?**`), page.click('button[type="submit"]')]);
    expect(authorizeRequests[0]?.searchParams.get('scope')).toBe('openid profile email');
    await page.fill('input[name="username"]', DEMO.user.username);
    await page.fill('input[name="password"]', DEMO.user.password);
    await Promise.all([page.waitForLoadState('load'), page.click('button[type="submit"]')]);
    expect(await page.textContent('h1')).toBe('Allow access?');
    await Promise.all([page.waitForURL(`${origin}/`), page.click('button[value="allow"]')]);
    const session = await page.evaluate(async () => (await fetch('/auth/session')).json());
    expect(session.user).toMatchObject({ name: 'Demo User', email: 'demo@example.com' });
    await context.close();
  });

  it('passport-openidconnect signs in through login and consent (client_secret_post, nonce), with the userinfo profile', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const authorizeRequests = authorizeRequestsOf(page);
    await page.goto(`${origin}/passport/login`);
    expect(authorizeRequests[0]?.searchParams.get('nonce')).toBeTruthy();
    await page.fill('input[name="username"]', DEMO.user.username);
    await page.fill('input[name="password"]', DEMO.user.password);
    await Promise.all([page.waitForLoadState('load'), page.click('button[type="submit"]')]);
    expect(await page.textContent('h1')).toBe('Allow access?');
    expect(await page.textContent('body')).toContain('Passport App');
    await Promise.all([page.waitForURL(`${origin}/passport/me`), page.click('button[value="allow"]')]);
    const { user } = JSON.parse((await page.textContent('body')) ?? '{}');
    expect(user).toMatchObject({
      id: 'user-demo',
      displayName: 'Demo User',
      username: 'demo',
      emails: [{ value: 'demo@example.com' }],
    });
    await context.close();
  });
});
