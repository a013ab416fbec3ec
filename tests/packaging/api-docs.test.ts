/**
 * The API reference (`pnpm docs:api`, `scripts/api-docs.mjs`: TypeDoc over the published
 * declarations) builds without a warning, with one page per entry of every package, named as it
 * is imported. Runs after `pnpm run build`, like the API reports beside it.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { packagesBuilt, publishedPackages } from '../support/pack';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'gatehouse-api-docs-'));

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe.skipIf(!packagesBuilt)('the API reference', () => {
  it('builds without a warning, a page per entry named by its import specifier', async () => {
    const outcome = await run('node', [join(root, 'scripts/api-docs.mjs'), '--out', out], { cwd: root }).then(
      ({ stdout, stderr }) => ({ ok: true, output: stdout + stderr }),
      (error: { stdout?: string; stderr?: string }) => ({
        ok: false,
        output: `${error.stdout}${error.stderr}`,
      }),
    );
    expect(outcome.output).not.toContain('[warning]');
    expect(outcome.ok, outcome.output).toBe(true);
    const specifiers = publishedPackages.flatMap(({ name, manifest }) =>
      Object.keys(manifest.exports ?? {})
        .filter((key) => key !== './package.json')
        .map((key) => (key === '.' ? name : `${name}/${key.slice(2)}`)),
    );
    for (const specifier of specifiers) {
      // TypeDoc's file name for a module: every character but letters and digits as `_`.
      const page = join(out, 'modules', `${specifier.replace(/[^a-z0-9]/gi, '_').toLowerCase()}.html`);
      expect(existsSync(page), specifier).toBe(true);
    }
    const core = readFileSync(join(out, 'functions/_gatehousejs_core.createGatehouse.html'), 'utf8');
    expect(core).toContain('ConfigurationError'); // its TSDoc: "Throws ConfigurationError for unusable options"
  });
});
