import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { launchChromium } from './browser';
import { type DemoServer, startDemoServer } from './demo-server';

const buildScript = fileURLToPath(new URL('../../scripts/build-browser.mjs', import.meta.url));

/** What a browser test of the demo app needs, available once `beforeAll` ran. */
export interface BundledDemo {
  readonly browser: Browser;
  readonly origin: string;
}

/**
 * Registers the hooks of a browser test of the demo app: bundle the browser code (what `pnpm start`
 * does first), start the Express example server and Chromium, and stop both afterwards.
 */
export function withBundledDemo(): () => BundledDemo {
  let server: DemoServer | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    execFileSync(process.execPath, [buildScript], { stdio: 'pipe' });
    server = await startDemoServer();
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });
  return () => {
    if (!browser || !server) throw new Error('withBundledDemo: used before its beforeAll ran');
    return { browser, origin: server.origin };
  };
}
