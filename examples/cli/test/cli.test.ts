/**
 * `gatehouse-demo` end to end: the real bin in a child process against the Express example server
 * (the demo instance, as `pnpm start` serves it), the person's approval in headless Chromium.
 * login (device flow, credentials file mode 0600), tickets, a silent refresh of an expired access
 * token, logout (revoked at the server, file gone).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumSkipReason, launchChromium } from '../../express/test/support/browser';
import { type DemoServer, startDemoServer } from '../../express/test/support/demo-server';
import { configDirectory } from '../src/credentials';

const BIN = fileURLToPath(new URL('../bin/gatehouse-demo.mjs', import.meta.url));
const BUN_ENTRY = fileURLToPath(new URL('../src/bin.ts', import.meta.url));
/** The `bun` binary of the workspace (a devDependency of examples/runtimes), when installed. */
const BUN = fileURLToPath(new URL('../../runtimes/node_modules/.bin/bun', import.meta.url));
const skip = chromiumSkipReason('cli.test');

/** A run of the bin (on Node.js, or on Bun): its output as it comes, and its exit code. */
function run(args: string[], env: Record<string, string>, runtime: 'node' | 'bun' = 'node') {
  const [command, entry] = runtime === 'node' ? [process.execPath, BIN] : [BUN, BUN_ENTRY];
  const child: ChildProcess = spawn(command, [entry, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    stderr += chunk;
  });
  const exit = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
  return {
    exit,
    output: () => ({ stdout, stderr }),
    /** Resolves with the stdout once it matches `pattern`. */
    async waitFor(pattern: RegExp, timeoutMs = 20_000): Promise<RegExpExecArray> {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const match = pattern.exec(stdout);
        if (match) return match;
        if (Date.now() > until || child.exitCode !== null) {
          throw new Error(`no ${pattern} in the output:\n${stdout}\n${stderr}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}

describe.skipIf(skip !== undefined)('gatehouse-demo (device flow CLI)', () => {
  let server: DemoServer;
  let browser: Browser;
  let configDir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startDemoServer(), launchChromium()]);
    configDir = join(await mkdtemp(join(tmpdir(), 'gatehouse-demo-')), 'config');
    env = { GATEHOUSE_ISSUER: server.issuer, GATEHOUSE_DEMO_CONFIG_DIR: configDir };
  }, 30_000);

  afterAll(async () => {
    await Promise.all([browser?.close(), server?.stop()]);
    if (configDir) await rm(join(configDir, '..'), { recursive: true, force: true });
  });

  /** The person, in a browser: the prefilled code, sign-in, the same code on the page, Allow. */
  async function approveInBrowser(complete: string, code: string): Promise<void> {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(complete);
    expect(await page.inputValue('input[name="user_code"]')).toBe(code);
    await Promise.all([page.waitForLoadState('load'), page.click('button[type="submit"]')]);
    await page.fill('input[name="username"]', 'demo');
    await page.fill('input[name="password"]', 'demo-password');
    await Promise.all([page.waitForURL('**/device/confirm?**'), page.click('button[type="submit"]')]);
    expect(await page.textContent('main')).toContain(code);
    await Promise.all([page.waitForLoadState('load'), page.click('button[value="allow"]')]);
    await context.close();
  }

  const credentials = async () =>
    JSON.parse(await readFile(join(configDir, 'credentials.json'), 'utf8')) as {
      issuer: string;
      clientId: string;
      tokens: { accessToken: string; refreshToken: string; expiresAt: number };
    };

  it('logs in with the device flow, lists tickets, refreshes silently, and logs out', async () => {
    const login = run(['login'], env);
    const [, url, code] = await login.waitFor(/open (\S+) and enter the code ([A-Z]{4}-[A-Z]{4})/);
    expect(url).toBe(`${server.issuer}/device`);
    const [, complete] = await login.waitFor(/\(or open (\S+)\)/);
    await approveInBrowser(complete!, code!);

    expect(await login.exit).toBe(0);
    expect(login.output().stdout).toContain('Signed in as Demo User.');
    const file = join(configDir, 'credentials.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(configDir)).mode & 0o777).toBe(0o700);
    const first = await credentials();
    expect(first).toMatchObject({ issuer: server.issuer, clientId: 'demo-cli' });
    expect(first.tokens.refreshToken).toBeTruthy();

    const tickets = run(['tickets'], env);
    expect(await tickets.exit).toBe(0);
    expect(tickets.output().stdout.trim().split('\n')).toHaveLength(5);
    expect(tickets.output().stdout).toMatch(/^TCK-\S+ {2}/m);

    // An expired access token is refreshed without a word (rotation: a new refresh token too).
    await writeFile(file, JSON.stringify({ ...first, tokens: { ...first.tokens, expiresAt: 1 } }), {
      mode: 0o600,
    });
    const refreshed = run(['tickets'], env);
    expect(await refreshed.exit).toBe(0);
    expect(refreshed.output().stderr).toBe('');
    const second = await credentials();
    expect(second.tokens.accessToken).not.toBe(first.tokens.accessToken);
    expect(second.tokens.refreshToken).not.toBe(first.tokens.refreshToken);
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    const logout = run(['logout'], env);
    expect(await logout.exit).toBe(0);
    await expect(stat(file)).rejects.toMatchObject({ code: 'ENOENT' });
    // Revoked at the server, not just forgotten here.
    const reuse = await fetch(`${server.issuer}/oauth2/v1/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: second.tokens.refreshToken,
        client_id: 'demo-cli',
      }),
    });
    expect((await reuse.json()).error).toBe('invalid_grant');
    const signedOut = run(['tickets'], env);
    expect(await signedOut.exit).toBe(1);
    expect(signedOut.output().stderr).toContain('gatehouse-demo login');
  }, 90_000);

  it.skipIf(!existsSync(BUN))(
    "runs on Bun too (the client library with Bun's fetch and timers)",
    async () => {
      const bunEnv = { ...env, GATEHOUSE_DEMO_CONFIG_DIR: join(configDir, '..', 'bun') };
      const login = run(['login'], bunEnv, 'bun');
      const [, code] = await login.waitFor(/enter the code ([A-Z]{4}-[A-Z]{4})/);
      const [, complete] = await login.waitFor(/\(or open (\S+)\)/);
      await approveInBrowser(complete!, code!);
      expect(await login.exit).toBe(0);
      expect(login.output().stdout).toContain('Signed in as Demo User.');
      const tickets = run(['tickets'], bunEnv, 'bun');
      expect(await tickets.exit).toBe(0);
      expect(tickets.output().stdout).toMatch(/^TCK-/m);
      expect(await run(['logout'], bunEnv, 'bun').exit).toBe(0);
    },
    90_000,
  );

  it('keeps the sign-in in the platform config directory', () => {
    expect(configDirectory({}, 'linux', '/home/ada')).toBe('/home/ada/.config/gatehouse-demo');
    expect(configDirectory({ XDG_CONFIG_HOME: '/xdg' }, 'linux', '/home/ada')).toBe('/xdg/gatehouse-demo');
    expect(configDirectory({}, 'darwin', '/Users/ada')).toBe(
      '/Users/ada/Library/Application Support/gatehouse-demo',
    );
    expect(
      configDirectory({ APPDATA: 'C:\\Users\\ada\\AppData\\Roaming' }, 'win32', 'C:\\Users\\ada'),
    ).toMatch(/gatehouse-demo$/);
  });
});
