/**
 * Headless Chromium for end-to-end tests: Debian's `/usr/bin/chromium` driven by playwright-core
 * (never a downloaded browser). Tests skip, with the printed reason, when it is not installed;
 * CI installs it (`.ci/run`).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Where tests save screenshots (gitignored `test-artifacts/` of the Express example). */
export const ARTIFACTS_DIR = fileURLToPath(new URL('../../test-artifacts', import.meta.url));

/** Why browser tests cannot run here, or `undefined` when they can. Prints the reason once per caller. */
export function chromiumSkipReason(testName: string): string | undefined {
  if (existsSync(CHROMIUM_PATH)) return undefined;
  const reason = `${CHROMIUM_PATH} is not installed (CI installs it with apt-get)`;
  console.warn(`${testName}: skipped, ${reason}.`);
  return reason;
}

/** Launches headless Chromium with the flags that keep it quiet and offline (loopback only). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
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
}

/** The path of an artifact file, creating the artifacts folder when needed. */
export function artifactPath(name: string): string {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  return `${ARTIFACTS_DIR}/${name}`;
}
