/**
 * Issue 22: "the three quick starts work as pasted". The quick start of the Express, Hono and Next.js
 * README is pasted, exactly as written, into a fresh project outside the workspace; the README's
 * `pnpm add` line is installed with the packed tarballs standing in for the registry, next to what a
 * project of that framework already has; the project is started the way its user would start it;
 * and headless Chromium signs in as the quick start's user through the authorization code flow and
 * opens the host's own `/me` route, which must recognise the session cookie. Runs after
 * `pnpm run build` (part of `pnpm test`); packages from the registry come from the pnpm store after
 * the first run.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { chromiumSkipReason, launchChromium } from '../../examples/express/test/support/browser';
import { freePort } from '../../examples/express/test/support/demo-server';
import {
  installFreshProject,
  type PackedPackage,
  packagesBuilt,
  packPublished,
  publishedPackages,
} from '../support/pack';
import { type AppProcess, runCommand, startApp } from './app-process';
import { fetchFromPage, openJson, signInWithCodeFlow } from './browser-session';
import { type QuickStart, readQuickStart } from './readme-quick-start';

const packagesDir = fileURLToPath(new URL('../../packages/', import.meta.url));

/**
 * The port the READMEs name. Every quick start runs on a free port instead, so the test never
 * collides with a developer's server: each `3000` of the pasted code (issuer, redirect URI,
 * `listen`) is replaced by that port, and nothing else is changed.
 */
const README_PORT = /\b3000\b/g;

/** What the three quick starts register, and what the test signs in with. */
const QUICK_START = {
  issuerPath: '/demo',
  clientId: 'my-app',
  redirectPath: '/callback',
  username: 'alice',
  password: 'alice-password',
  sub: 'u1',
} as const;

/** One framework's quick start. */
interface Case {
  /** Folder of the adapter under `packages/`. */
  readonly adapter: string;
  /**
   * What a project of that framework has besides the README's install line (a spec here replaces
   * the same package on that line, to pin a major version).
   */
  readonly framework: readonly string[];
  /** Files the framework's project starter writes. */
  readonly scaffold?: Readonly<Record<string, string>>;
  /** Builds the project before it starts, when the framework needs that. */
  readonly build?: readonly string[];
  /** The command that serves the pasted project on `port`. */
  start(quickStart: QuickStart, port: number): readonly string[];
}

/** `tsconfig.json` as `create-next-app` 15 writes it (strict), which `next build` type-checks against. */
const NEXT_TSCONFIG = {
  compilerOptions: {
    target: 'ES2017',
    lib: ['dom', 'dom.iterable', 'esnext'],
    allowJs: true,
    skipLibCheck: true,
    strict: true,
    noEmit: true,
    esModuleInterop: true,
    module: 'esnext',
    moduleResolution: 'bundler',
    resolveJsonModule: true,
    isolatedModules: true,
    jsx: 'preserve',
    incremental: true,
    plugins: [{ name: 'next' }],
    paths: { '@/*': ['./*'] },
  },
  include: ['next-env.d.ts', '**/*.ts', '**/*.tsx', '.next/types/**/*.ts'],
  exclude: ['node_modules'],
};

const CASES: readonly Case[] = [
  { adapter: 'express', framework: ['express@5', 'tsx'], start: runWithFromReadme },
  { adapter: 'hono', framework: ['tsx'], start: runWithFromReadme },
  {
    adapter: 'next',
    // What create-next-app 15.5 installs. TypeScript 5: Next.js 15 refuses TypeScript 7, whose
    // native compiler has no JavaScript API.
    framework: [
      'next@15.5',
      'react@19',
      'react-dom@19',
      'typescript@5',
      '@types/react@19',
      '@types/react-dom@19',
      '@types/node@20',
    ],
    scaffold: { 'tsconfig.json': JSON.stringify(NEXT_TSCONFIG, null, 2) },
    build: ['npx', 'next', 'build'],
    start: (_quickStart, port) => ['npx', 'next', 'start', '-p', String(port)],
  },
];

/** The "run with `…`" command of a single-file quick start. */
function runWithFromReadme(quickStart: QuickStart): readonly string[] {
  const runWith = quickStart.files.length === 1 ? quickStart.files[0]!.runWith : undefined;
  if (!runWith) throw new Error('a single-file quick start must say "run with `…`" on its first line');
  return runWith.split(' ');
}

/** The name of a package spec: `@types/node@20` → `@types/node`, `express@5` → `express`. */
function packageName(spec: string): string {
  const at = spec.indexOf('@', 1);
  return at < 0 ? spec : spec.slice(0, at);
}

/** The README's install line with the framework's pins, then the rest of the framework. */
function installSpecs(install: readonly string[], framework: readonly string[]): string[] {
  const pinned = new Set(framework.map(packageName));
  return [...install.filter((spec) => !pinned.has(packageName(spec))), ...framework];
}

const skipReason = packagesBuilt
  ? chromiumSkipReason('quickstarts')
  : 'the packages are not built (run `pnpm run build`)';
if (!packagesBuilt) console.warn(`quickstarts: skipped, ${skipReason}.`);

let work: string;
let packed: PackedPackage[] = [];
let browser: Browser | undefined;

beforeAll(async () => {
  if (skipReason) return;
  work = mkdtempSync(join(tmpdir(), 'gatehouse-quickstarts-'));
  packed = await packPublished(join(work, 'tarballs'));
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe.skipIf(skipReason !== undefined)('the quick starts, pasted into fresh projects', () => {
  for (const quickStartCase of CASES) {
    const readme = join(packagesDir, quickStartCase.adapter, 'README.md');

    it(`${quickStartCase.adapter}: the host's /me answers the browser's session after sign-in`, async () => {
      const quickStart = readQuickStart(readme);
      const source = quickStart.files.map(({ code }) => code).join('\n');
      for (const expected of [
        `'http://localhost:3000${QUICK_START.issuerPath}'`,
        `'http://localhost:3000${QUICK_START.redirectPath}'`,
        `id: '${QUICK_START.clientId}'`,
        `username: '${QUICK_START.username}'`,
        `hash('${QUICK_START.password}')`,
        `id: '${QUICK_START.sub}'`,
      ]) {
        expect(source, `the quick start no longer contains ${expected}; update this test`).toContain(
          expected,
        );
      }
      const adapterPackage = publishedPackages.find(({ dir }) => basename(dir) === quickStartCase.adapter);
      expect(quickStart.install, 'the README installs its adapter').toContain(adapterPackage?.name);

      const port = await freePort();
      const origin = `http://localhost:${port}`;
      const issuer = `${origin}${QUICK_START.issuerPath}`;
      const project = join(work, quickStartCase.adapter);
      await installFreshProject(
        project,
        'pnpm',
        packed,
        installSpecs(quickStart.install, quickStartCase.framework),
      );
      const files = {
        ...quickStartCase.scaffold,
        ...Object.fromEntries(
          quickStart.files.map(({ path, code }) => [path, code.replace(README_PORT, String(port))]),
        ),
      };
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(project, path)), { recursive: true });
        writeFileSync(join(project, path), text);
      }
      if (quickStartCase.build) await runCommand(quickStartCase.build, project);

      let app: AppProcess | undefined;
      onTestFailed(() => console.error(`${quickStartCase.adapter} quick start output:\n${app?.output()}`));
      app = await startApp(
        quickStartCase.start(quickStart, port),
        project,
        `${issuer}/.well-known/oauth-authorization-server`,
      );
      const context = await browser!.newContext();
      try {
        const page = await context.newPage();
        // Without a session the route refuses, so the 200 below is the session's doing.
        expect((await openJson(page, `${origin}/me`)).status).toBe(401);

        const back = await signInWithCodeFlow(page, issuer, {
          clientId: QUICK_START.clientId,
          redirectUri: `${origin}${QUICK_START.redirectPath}`,
          username: QUICK_START.username,
          password: QUICK_START.password,
        });
        expect(back.searchParams.get('code')).toBeTruthy();
        expect(back.searchParams.get('iss')).toBe(issuer);

        const caller = { sub: QUICK_START.sub, scheme: 'session' };
        // The user opening the route, then a script of the same origin calling it.
        expect(await openJson(page, `${origin}/me`)).toEqual({ status: 200, body: caller });
        expect(await fetchFromPage(page, '/me')).toEqual({ status: 200, body: caller });
      } finally {
        await context.close();
        await app.stop();
      }
    });
  }
});
