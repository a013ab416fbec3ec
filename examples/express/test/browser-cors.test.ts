/**
 * CORS and the session cookie's origin rules, seen from a real browser: a page on an allowed
 * origin logs in and calls the demo's tickets API with `credentials: 'include'`; a page on another origin is refused by CORS.
 * Pages are served from `http://localhost:<other port>`: same site as the instance (ports do not
 * count for sites), so the SameSite=Lax session cookie travels and only the origin check decides.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumSkipReason, launchChromium } from './support/browser';
import { type DemoServer, startDemoServer } from './support/demo-server';

const skip = chromiumSkipReason('browser-cors.test');
/** The seeded demo user and confidential client (examples/demo). */
const USER = { id: 'user-demo', username: 'demo', password: 'demo-password' };
const CLIENT_ID = 'demo-client';

interface FetchOutcome {
  readonly status?: number;
  readonly body?: { tickets?: { ownerSub: string }[]; error?: string };
  readonly failure?: string;
}

async function listen(handler: RequestListener): Promise<{ server: Server; port: number }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A third-party page: an empty document whose scripts the test runs. */
const page: RequestListener = (_req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
  res.end('<!doctype html><title>third-party page</title><h1>page</h1>');
};

describe.skipIf(skip !== undefined)('tickets API from a browser (Chromium, Express example server)', () => {
  const pages: Server[] = [];
  let server: DemoServer;
  let browser: Browser;
  let allowedPage: string;
  let foreignPage: string;

  beforeAll(async () => {
    const allowed = await listen(page);
    const foreign = await listen(page);
    pages.push(allowed.server, foreign.server);
    allowedPage = `http://localhost:${allowed.port}`;
    foreignPage = `http://localhost:${foreign.port}`;
    [server, browser] = await Promise.all([
      startDemoServer({ GATEHOUSE_ALLOWED_ORIGINS: allowedPage }),
      launchChromium(),
    ]);
  }, 30_000);

  afterAll(async () => {
    await Promise.all([browser?.close(), server?.stop(), ...pages.map(close)]);
  });

  /** Calls the tickets API from the page currently open, as a browser app would. */
  async function callTickets(tab: Page): Promise<FetchOutcome> {
    return tab.evaluate(async (url) => {
      try {
        const response = await fetch(url, {
          method: 'POST',
          credentials: 'include',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ limit: 3 }),
        });
        return { status: response.status, body: await response.json() };
      } catch (error) {
        return { failure: String(error) };
      }
    }, `${server.issuer}/api/v1/tickets`);
  }

  it('lets a logged-in user call the API from an allowed origin and refuses another origin', async () => {
    const context = await browser.newContext();
    // The callback is answered here: the demo app's own callback script would redeem the code.
    await context.route(`${server.origin}/callback**`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/plain', body: 'signed in' }),
    );
    const tab = await context.newPage();

    // Before login the allowed page can read the 401 (CORS headers are on errors too).
    await tab.goto(`${allowedPage}/`);
    expect(await callTickets(tab)).toEqual({
      status: 401,
      body: { error: 'unauthorized', error_description: expect.any(String) },
    });

    // Log in on the instance's own login page, through an authorization request of the demo client.
    const authorize = new URL(`${server.issuer}/oauth2/v1/authorize`);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: `${server.origin}/callback`,
      state: 'browser-cors',
    }).toString();
    await tab.goto(authorize.toString());
    await tab.fill('#username', USER.username);
    await tab.fill('#password', USER.password);
    await Promise.all([tab.waitForURL(`${server.origin}/callback?**`), tab.click('button[type=submit]')]);

    await tab.goto(`${allowedPage}/`);
    const allowed = await callTickets(tab);
    expect(allowed.status).toBe(200);
    expect(allowed.body?.tickets).toHaveLength(3);
    expect(allowed.body?.tickets?.every((ticket) => ticket.ownerSub === USER.id)).toBe(true);

    // Same browser, same cookie, another origin: the preflight gets no CORS headers, so the
    // browser refuses to send the request (or to hand over any answer).
    await tab.goto(`${foreignPage}/`);
    const foreign = await callTickets(tab);
    expect(foreign.status).toBeUndefined();
    expect(foreign.failure).toMatch(/TypeError/);

    await context.close();
  }, 60_000);
});
