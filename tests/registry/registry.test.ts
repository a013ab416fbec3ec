/**
 * Issue 32: "installable as documented, proven by name". A local registry (verdaccio, started here on
 * 127.0.0.1 and a random port, storage in a temp folder) receives every package from the release
 * script (`scripts/release.mjs`, as a maintainer would run it); the Express README's install line is
 * then installed **by package name** with npm, pnpm and Bun into fresh projects outside the
 * workspace, and the README's quick start, pasted as written, is started in each and answers its
 * discovery document, a token request and the host's `/me` route. The `@gatehousejs` scope is
 * served only from what was published here, so a green run cannot come from anything else; other
 * packages (express, tsx) come through the registry's uplink to the public npm registry.
 *
 * Skips, with the reason printed, when the packages are not built or verdaccio cannot start; the
 * whole file takes about a minute (its duration is printed) and cleans up its processes and folders.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { freePort } from '../../examples/express/test/support/demo-server';
import { type AppProcess, startApp, userEnvironment } from '../quickstarts/app-process';
import { readQuickStart } from '../quickstarts/readme-quick-start';
import { packagesBuilt, publishedPackages } from '../support/pack';
import { type LocalRegistry, startLocalRegistry } from './verdaccio';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const bunBin = join(root, 'examples/runtimes/node_modules/.bin/bun');
const expressReadme = join(root, 'packages/express/README.md');

/** The port the README names; the pasted quick start runs on a free one instead. */
const README_PORT = /\b3000\b/g;

type Manager = 'npm' | 'pnpm' | 'bun';

let work = '';
let registry: LocalRegistry | undefined;
let skipReason: string | undefined = packagesBuilt
  ? undefined
  : 'the packages are not built (run `pnpm run build`)';
const started = Date.now();

beforeAll(async () => {
  if (skipReason) return;
  work = mkdtempSync(join(tmpdir(), 'gatehouse-registry-'));
  mkdirSync(join(work, 'verdaccio'));
  // The package managers read no user configuration (a developer's registry or token stays out).
  writeFileSync(join(work, 'empty.npmrc'), '');
  try {
    registry = await startLocalRegistry(join(work, 'verdaccio'));
  } catch (error) {
    skipReason = `verdaccio cannot start: ${(error as Error).message.split('\n').slice(0, 6).join('\n')}`;
  }
});

beforeAll(() => {
  if (skipReason) console.warn(`registry: skipped, ${skipReason}`);
});

afterAll(async () => {
  await registry?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
  if (!skipReason)
    console.log(`registry: the whole file took ${((Date.now() - started) / 1000).toFixed(1)} s`);
});

/** Runs a command, rejecting with its output; returns stdout and the seconds it took. */
async function timed(
  command: string,
  args: readonly string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ stdout: string; seconds: number }> {
  const begin = Date.now();
  try {
    const { stdout } = await run(command, args, {
      cwd,
      env: userEnvironment({ npm_config_userconfig: join(work, 'empty.npmrc'), ...env }),
      maxBuffer: 16 * 1024 * 1024,
      timeout: 120_000,
    });
    return { stdout, seconds: (Date.now() - begin) / 1000 };
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`\`${command} ${args.join(' ')}\` failed in ${cwd}:\n${stdout}${stderr}`);
  }
}

/** The README's line for `manager`: `pnpm add …` → `npm install …` / `bun add …`, same packages. */
function installCommand(manager: Manager, packages: readonly string[], url: string): [string, string[]] {
  switch (manager) {
    case 'npm':
      return [
        'npm',
        ['install', '--registry', url, '--no-audit', '--no-fund', '--loglevel=error', ...packages],
      ];
    case 'pnpm':
      return ['pnpm', ['add', '--registry', url, ...packages]];
    case 'bun':
      return [bunBin, ['add', '--registry', url, ...packages]];
  }
}

/** Why Bun cannot run here, if it cannot (its npm package's binary, as examples/runtimes uses it). */
function bunSkipReason(): string | undefined {
  if (!existsSync(bunBin)) return `no Bun binary at ${bunBin} (pnpm install)`;
  return undefined;
}

describe('the packages, published to a local registry and installed by name', () => {
  it('the release script publishes every package, with caret ranges between them', async (context) => {
    if (skipReason || !registry) return context.skip();
    const { seconds } = await timed(
      'node',
      ['scripts/release.mjs', '--registry', registry.url, '--skip-build'],
      root,
      { npm_config_userconfig: registry.npmrc },
    );
    console.log(
      `registry: release script published ${publishedPackages.length} packages in ${seconds.toFixed(1)} s`,
    );
    const versions = new Map(publishedPackages.map((p) => [p.name, p.version]));
    for (const { name, version } of publishedPackages) {
      const document = (await (await fetch(new URL(name.replace('/', '%2f'), registry.url))).json()) as {
        'dist-tags': Record<string, string>;
        versions: Record<string, { dependencies?: Record<string, string> }>;
      };
      expect(document['dist-tags'].latest, name).toBe(version);
      for (const [dependency, range] of Object.entries(document.versions[version]?.dependencies ?? {})) {
        if (versions.has(dependency))
          expect(range, `${name} → ${dependency}`).toBe(`^${versions.get(dependency)}`);
      }
    }
  });

  for (const manager of ['npm', 'pnpm', 'bun'] as const) {
    it(`${manager}: the Express README's install line, then its quick start answers`, async (context) => {
      if (skipReason || !registry) return context.skip();
      if (manager === 'bun' && bunSkipReason()) {
        console.warn(`registry: bun skipped, ${bunSkipReason()}`);
        return context.skip();
      }
      const quickStart = readQuickStart(expressReadme);
      expect(quickStart.install).toEqual(['@gatehousejs/core', '@gatehousejs/express', 'express']);
      const [file] = quickStart.files;
      expect(quickStart.files).toHaveLength(1);

      const project = join(work, `app-${manager}`);
      mkdirSync(project);
      writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'fresh-app', private: true }));
      // The quick start runs with `npx tsx`; Bun runs TypeScript itself.
      const packages = manager === 'bun' ? quickStart.install : [...quickStart.install, 'tsx'];
      const [command, args] = installCommand(manager, packages, registry.url);
      const { seconds } = await timed(command, args, project, {
        BUN_INSTALL_CACHE_DIR: join(work, 'bun-cache'),
      });
      console.log(`registry: ${manager} installed ${packages.join(' ')} in ${seconds.toFixed(1)} s`);

      for (const { name, version } of publishedPackages.filter((p) => quickStart.install.includes(p.name))) {
        const installed = JSON.parse(
          readFileSync(join(project, 'node_modules', name, 'package.json'), 'utf8'),
        );
        expect(installed.version, name).toBe(version);
      }
      const port = await freePort();
      const origin = `http://localhost:${port}`;
      const issuer = `${origin}/demo`;
      writeFileSync(join(project, file!.path), file!.code.replace(README_PORT, String(port)));
      const start = manager === 'bun' ? [bunBin, file!.path] : file!.runWith!.split(' ');
      let app: AppProcess | undefined;
      onTestFailed(() => console.error(`${manager} quick start output:\n${app?.output()}`));
      app = await startApp(start, project, `${issuer}/.well-known/oauth-authorization-server`);
      try {
        const metadata = await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json();
        expect(metadata.issuer).toBe(issuer);
        expect(metadata.token_endpoint).toBe(`${issuer}/oauth2/v1/token`);

        // The README's "Try it": the Auth API's password token, then the host's own route with it.
        const token = await fetch(`${issuer}/auth/v1/token`, {
          method: 'POST',
          headers: { authorization: `Basic ${btoa('alice:alice-password')}` },
        });
        expect(token.status).toBe(200);
        const { access_token } = (await token.json()) as { access_token: string };
        const me = await fetch(`${origin}/me`, { headers: { authorization: `Bearer ${access_token}` } });
        expect(await me.json()).toEqual({ sub: 'u1', scheme: 'bearer' });
        expect((await fetch(`${origin}/me`)).status).toBe(401);
      } finally {
        await app.stop();
      }
    });
  }
});
