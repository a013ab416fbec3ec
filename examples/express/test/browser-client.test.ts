/**
 * End to end: the demo browser app (public/, bundled from src/browser/app.ts) in headless Chromium
 * against the Express example server, as `pnpm start` runs it. Signs in with the code flow and
 * PKCE, lists tickets with the bearer token and with the session cookie, refreshes, signs out.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium)
  console.warn(`browser-client.test: skipped, ${CHROMIUM} is not installed (CI installs it).`);

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const ARTIFACTS = here('../test-artifacts');

/** A port that was free a moment ago (the issuer includes the port, so 0 cannot be used). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** Starts `src/server.ts` like `pnpm start` does and resolves once it listens. */
function startServer(port: number): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', here('../src/server.ts')], {
      cwd: here('..'),
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('listening on')) resolve(child);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
}

/** Clicks a button of the app and waits until its action has finished. */
async function press(page: Page, id: string): Promise<string> {
  const done = Number((await page.getAttribute('body', 'data-actions')) ?? '0');
  await page.click(`#${id}`);
  await page.waitForSelector(`body[data-actions="${done + 1}"]`);
  return (await page.textContent('#message')) ?? '';
}

describe.skipIf(!hasChromium)('the demo browser app (Chromium, Express example server)', () => {
  let server: ChildProcess | undefined;
  let browser: Browser | undefined;
  let origin = '';

  beforeAll(async () => {
    execFileSync(process.execPath, [here('../scripts/build-browser.mjs')], { stdio: 'pipe' });
    const port = await freePort();
    origin = `http://localhost:${port}`;
    server = await startServer(port);
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
    server?.kill('SIGTERM');
  });

  it('signs in, lists tickets in oauth and session mode, refreshes and signs out', async () => {
    const page = await browser!.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));

    await page.goto(`${origin}/`);
    await page.waitForSelector('body[data-ready="yes"]');
    expect(await page.textContent('#who')).toBe('nobody (no session)');
    expect(await page.textContent('#expires')).toBe('no token');

    // The code flow: authorize → login page → callback → back on the app.
    await page.click('#sign-in');
    await page.waitForSelector('input[name=username]');
    expect(new URL(page.url()).searchParams.get('code_challenge_method')).toBe('S256');
    await page.fill('input[name=username]', 'demo');
    await page.fill('input[name=password]', 'demo-password');
    await Promise.all([page.waitForURL(`${origin}/`), page.click('button[type=submit]')]);
    await page.waitForSelector('body[data-ready="yes"][data-signed-in="yes"]');
    expect(await page.textContent('#message')).toBe('Signed in.');
    expect(await page.textContent('#who')).toBe('user-demo');
    expect(await page.textContent('#expires')).toMatch(/\(in 3\d{3} s\)$/);
    // The callback URL (with its code) is gone from the history entry.
    expect(page.url()).toBe(`${origin}/`);

    expect(await press(page, 'tickets-oauth')).toMatch(/^[1-5] tickets listed with the bearer token\.$/);
    const oauthTickets = await page.locator('#tickets li').count();
    expect(oauthTickets).toBeGreaterThan(0);
    expect(oauthTickets).toBeLessThanOrEqual(5);

    expect(await press(page, 'tickets-session')).toMatch(/^[1-5] tickets listed with the session cookie\.$/);
    expect(await page.textContent('#tickets-mode')).toBe('session cookie (session mode)');

    const before = await page.textContent('#token-id');
    expect(await press(page, 'refresh')).toBe('Token refreshed.');
    expect(await page.textContent('#token-id')).not.toBe(before);
    expect(await press(page, 'tickets-oauth')).toMatch(/with the bearer token/);

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: `${ARTIFACTS}/client-demo.png`, fullPage: true });

    expect(await press(page, 'sign-out')).toBe('Signed out: tokens revoked, session ended.');
    expect(await page.textContent('#who')).toBe('nobody (no session)');
    expect(await page.textContent('#expires')).toBe('no token');
    // Both credentials are dead now: no token to send, and the cookie no longer opens the API.
    expect(await press(page, 'tickets-oauth')).toMatch(/^no_token/);
    expect(await press(page, 'tickets-session')).toMatch(/^Tickets \(session\): 401/);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('shows a callback that belongs to no sign-in of the page, without exchanging anything', async () => {
    const page = await browser!.newPage();
    await page.goto(`${origin}/callback?code=abc&state=forged`);
    await page.waitForSelector('body[data-ready="yes"]');
    expect(await page.textContent('#callback-result')).toMatch(/does not belong to a sign-in/);
    expect(await page.textContent('#callback-params')).toContain('forged');
    await page.close();
  });
});
