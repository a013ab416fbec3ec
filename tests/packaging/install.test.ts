/**
 * What a user gets from the registry: every published package is packed exactly as `pnpm publish`
 * would (`pnpm pack`), installed into a fresh project outside the workspace with npm and with pnpm,
 * and every entry point of its `exports` map is loaded with `import` and with `require`. This is the
 * test that catches a CommonJS build that crashes on load, a `workspace:` range that leaks, an
 * entry missing from `files`, or an exports map pointing at nothing — none of which publint or attw
 * see. Runs after `pnpm run build` (part of `pnpm test`).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  installFreshProject,
  type PackedPackage,
  packagesBuilt,
  packedManifest,
  packPublished,
  publishedPackages,
} from '../support/pack';
import { listing, readTarball, tarballProblems } from './tarball-contents';

const run = promisify(execFile);

/** Entry specifiers: `name` and `name/sub` for every key of `exports` but `./package.json`. */
const entries = publishedPackages.flatMap(({ name, manifest }) =>
  Object.keys(manifest.exports ?? { '.': {} })
    .filter((key) => key !== './package.json')
    .map((key) => (key === '.' ? name : `${name}/${key.slice(2)}`)),
);

if (!packagesBuilt)
  console.warn('packaging: packages are not built (run `pnpm run build`); skipping the install test.');

let work: string;
let packed: PackedPackage[] = [];

beforeAll(async () => {
  if (!packagesBuilt) return;
  work = mkdtempSync(join(tmpdir(), 'gatehouse-install-'));
  packed = await packPublished(join(work, 'tarballs'));
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A fresh project in the temp directory (no workspace above it) with every tarball installed. */
async function installWith(manager: 'npm' | 'pnpm'): Promise<string> {
  const project = join(work, `app-${manager}`);
  const everyPackage = packed.map(({ name }) => name);
  await installFreshProject(project, manager, packed, everyPackage);
  return project;
}

/** Loads every entry point with ESM `import()` and with CommonJS `require()`, in a fresh Node. */
async function loadEveryEntry(project: string): Promise<Record<string, { esm: number; cjs: number }>> {
  writeFileSync(
    join(project, 'load.mjs'),
    `import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const result = {};
for (const entry of ${JSON.stringify(entries)}) {
  const esm = await import(entry);
  const cjs = require(entry);
  result[entry] = { esm: Object.keys(esm).length, cjs: Object.keys(cjs).length };
}
console.log(JSON.stringify(result));
`,
  );
  const { stdout } = await run('node', ['load.mjs'], { cwd: project });
  return JSON.parse(stdout);
}

describe.skipIf(!packagesBuilt)('the packed packages, installed outside the workspace', () => {
  it('depend on the other packages of this repository by a caret range of their version', async () => {
    const versions = new Map(publishedPackages.map((p) => [p.name, p.version]));
    for (const { tarball } of packed) {
      const manifest = await packedManifest(tarball);
      for (const [name, range] of Object.entries((manifest.dependencies ?? {}) as Record<string, string>)) {
        if (versions.has(name)) expect(range, `${manifest.name} → ${name}`).toBe(`^${versions.get(name)}`);
      }
      expect(JSON.stringify(manifest)).not.toContain('workspace:');
    }
  });

  it('hold only what a user installs (listed here): no tests, no source maps, no secrets, within budget', async () => {
    const problems: string[] = [];
    for (const { name, tarball } of [...packed].sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const files = await readTarball(tarball);
      console.log(listing(name, statSync(tarball).size, files));
      problems.push(...tarballProblems(name, files));
    }
    expect(problems).toEqual([]);
  });

  it('publish publicly with provenance (publishConfig), which `pnpm release` turns off outside CI', async () => {
    for (const { tarball } of packed) {
      const manifest = await packedManifest(tarball);
      expect(manifest.publishConfig, String(manifest.name)).toEqual({ access: 'public', provenance: true });
    }
  });

  for (const manager of ['npm', 'pnpm'] as const) {
    it(`install with ${manager}, and every entry point loads with import and require`, async () => {
      const project = await installWith(manager);
      const loaded = await loadEveryEntry(project);
      for (const entry of entries) {
        expect(loaded[entry]?.esm, `${entry} (import)`).toBeGreaterThan(0);
        expect(loaded[entry]?.cjs, `${entry} (require)`).toBe(loaded[entry]?.esm);
      }
      // The key generator the README tells new users to run.
      const { stdout } = await run(join(project, 'node_modules/.bin/gatehouse'), ['keys', 'generate']);
      expect(JSON.parse(stdout).privateJwk).toMatchObject({ kty: 'EC', alg: 'ES256' });
      // The conformance command (`npx gatehouse-conformance --help`): the plans it runs.
      const help = await run(join(project, 'node_modules/.bin/gatehouse-conformance'), ['--help']);
      expect(help.stdout).toContain('oidcc-basic-certification-test-plan');
      expect(help.stdout).toContain('mcp-authorization-server');
    });
  }
});
