/**
 * Seed §5 rules 2–3 seen from a real browser: a page on an allowed origin logs in and calls the
 * demo's tickets API with `credentials: 'include'`; a page on another origin is refused by CORS.
 * Pages are served from `http://localhost:<other port>`: same site as the instance (ports do not
 * count for sites), so the SameSite=Lax session cookie travels and only the origin check decides.
 */
import { existsSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendWebResponse } from '@gatehouse/core/node';
import { createDemo, DEMO, type Demo, demoApi } from '@gatehouse/demo';
import { gatehouse, toRequest } from '@gatehouse/express';
import express from 'express';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`browser-cors.test: skipped, ${CHROMIUM} is absent (CI installs it).`);

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

function close(server: Server | undefined): Promise<void> {
  if (!server) return Promise.resolve();
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

const page: RequestListener = (_req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
  res.end('<!doctype html><title>third-party page</title><h1>page</h1>');
};

describe.skipIf(!hasChromium)('tickets API from a browser (Chromium)', () => {
  const servers: Server[] = [];
  let browser: Browser;
  let demo: Demo;
  let allowedPage: string;
  let foreignPage: string;

  beforeAll(async () => {
    const allowed = await listen(page);
    const foreign = await listen(page);
    servers.push(allowed.server, foreign.server);
    allowedPage = `http://localhost:${allowed.port}`;
    foreignPage = `http://localhost:${foreign.port}`;

    // The instance's port must be known before its issuer is: listen first, attach the app after.
    const api = await listen(() => {});
    servers.push(api.server);
    demo = await createDemo({ port: api.port, allowedOrigins: [allowedPage], warn: () => {} });
    const tickets = demoApi(demo.gatehouse);
    const app = express();
    app.use(DEMO.instancePath, gatehouse(demo.gatehouse));
    app.use((req, res, next) => {
      tickets(toRequest(req, res))
        .then((response) => (response ? sendWebResponse(res, response) : next()))
        .catch(next);
    });
    app.get('/callback', (_req, res) => {
      res.type('text').send('signed in');
    });
    api.server.removeAllListeners('request');
    api.server.on('request', app);

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all(servers.map(close));
  });

  /** Calls the tickets API from the page currently open, as a browser app would. */
  async function callTickets(tab: import('playwright-core').Page): Promise<FetchOutcome> {
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
    }, `${demo.issuer}/api/v1/tickets`);
  }

  it('lets a logged-in user call the API from an allowed origin and refuses another origin', async () => {
    const context = await browser.newContext();
    const tab = await context.newPage();

    // Before login the allowed page can read the 401 (CORS headers are on errors too).
    await tab.goto(`${allowedPage}/`);
    expect(await callTickets(tab)).toEqual({
      status: 401,
      body: { error: 'unauthorized', error_description: expect.any(String) },
    });

    // Log in on the instance's own login page, through an authorization request of the demo client.
    const authorize = new URL(`${demo.issuer}/oauth2/v1/authorize`);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: DEMO.client.id,
      redirect_uri: demo.redirectUri,
      state: 'browser-cors',
    }).toString();
    await tab.goto(authorize.toString());
    await tab.fill('#username', DEMO.user.username);
    await tab.fill('#password', DEMO.user.password);
    await Promise.all([tab.waitForURL(`${demo.redirectUri}?**`), tab.click('button[type=submit]')]);

    await tab.goto(`${allowedPage}/`);
    const allowed = await callTickets(tab);
    expect(allowed.status).toBe(200);
    expect(allowed.body?.tickets).toHaveLength(3);
    expect(allowed.body?.tickets?.every((ticket) => ticket.ownerSub === DEMO.user.id)).toBe(true);

    // Same browser, same cookie, another origin: the preflight gets no CORS headers, so the
    // browser refuses to send the request (or to hand over any answer).
    await tab.goto(`${foreignPage}/`);
    const foreign = await callTickets(tab);
    expect(foreign.status).toBeUndefined();
    expect(foreign.failure).toMatch(/TypeError/);

    await context.close();
  }, 60_000);
});
