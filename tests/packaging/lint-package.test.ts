/**
 * `pnpm lint` runs every package's `lint:package` (publint --strict, then attw against the packed
 * tarball). This shows that it fails the build on what those tools exist to find: a copy of a
 * built package passes its own `lint:package` command, then fails it once its manifest is broken the
 * way a real mistake would break it: CommonJS consumers pointed at the ESM declarations, or a file
 * the exports map names left out of `files` (publint), and a declaration file importing one the
 * tarball lacks, which publint does not read (attw: "internal resolution error").
 */
import { exec } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packagesBuilt, publishedPackages } from '../support/pack';

const run = promisify(exec);
const root = fileURLToPath(new URL('../../', import.meta.url));
const express = publishedPackages.find((p) => p.name === '@gatehousejs/express')!;
const command = (express.manifest.scripts as Record<string, string>)['lint:package']!;

/** The parts of a manifest the breaks below touch. */
interface Manifest {
  files?: string[];
  exports: Record<string, { require: { types: string } }>;
}

let work = '';

beforeAll(() => {
  if (!packagesBuilt) return;
  work = mkdtempSync(join(tmpdir(), 'gatehouse-lint-package-'));
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/**
 * A copy of the built Express adapter, `change` applied to its manifest (and files), and the outcome
 * of its own `lint:package` command run there.
 */
async function lintCopy(
  name: string,
  change: (manifest: Manifest, dir: string) => void,
): Promise<{ ok: boolean; output: string }> {
  const dir = join(work, name);
  for (const entry of ['package.json', 'README.md', 'LICENSE', 'dist'])
    cpSync(join(express.dir, entry), join(dir, entry), { recursive: true });
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  change(manifest, dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  const env = {
    ...process.env,
    PATH: `${join(root, 'node_modules/.bin')}:${process.env.PATH}`,
    NO_COLOR: '1',
  };
  return run(command, { cwd: dir, env }).then(
    ({ stdout, stderr }) => ({ ok: true, output: stdout + stderr }),
    (error: { stdout?: string; stderr?: string }) => ({
      ok: false,
      output: `${error.stdout ?? ''}${error.stderr ?? ''}`,
    }),
  );
}

describe.skipIf(!packagesBuilt)("a package's lint:package (publint and attw)", () => {
  it('passes the package as built', async () => {
    const outcome = await lintCopy('as-built', () => {});
    expect(outcome.output).not.toMatch(/error/i);
    expect(outcome.ok).toBe(true);
  });

  it('fails when require() is given the ESM declarations, or a named file is not published (publint)', async () => {
    const masquerading = await lintCopy('masquerading', (manifest) => {
      manifest.exports['.']!.require.types = './dist/index.d.ts';
    });
    expect(masquerading.ok).toBe(false);
    expect(masquerading.output).toContain('require.types types is interpreted as ESM');
    const unpublished = await lintCopy('unpublished-dist', (manifest) => {
      manifest.files = ['README.md'];
    });
    expect(unpublished.ok).toBe(false);
    expect(unpublished.output).toMatch(/dist\/index\.(c?js|d\.c?ts)/);
  });

  it('fails when a declaration imports a file the tarball lacks (attw, after publint passes)', async () => {
    const outcome = await lintCopy('missing-declaration', (_manifest, dir) => {
      appendFileSync(join(dir, 'dist/index.d.cts'), "export * from './chunk-missing.cjs';\n");
    });
    expect(outcome.ok).toBe(false);
    expect(outcome.output).toContain('All good!'); // publint's verdict: this one is attw's to find
    expect(outcome.output).toContain('Internal resolution error');
  });
});
