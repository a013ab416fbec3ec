/**
 * The public surface of every published package, as its built `.d.ts` declares it, is committed in
 * `packages/<pkg>/api/<entry>.api.md` (`scripts/api-report.mjs`). This test fails when a report is
 * stale, printing the diff and the command that regenerates them, and when an entry's declarations
 * mention a type that no entry of the package exports. Runs after `pnpm run build` (part of
 * `pnpm test`), like the install test beside it.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { packagesBuilt } from '../support/pack';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));

if (!packagesBuilt) console.warn('api reports: packages are not built (run `pnpm run build`); skipping.');

describe.skipIf(!packagesBuilt)('API reports', () => {
  it('match the built declarations of every entry, and name every type they reference', async () => {
    const outcome = await run('node', [join(root, 'scripts/api-report.mjs'), '--check'], { cwd: root }).then(
      () => '',
      (error: { stderr?: string; message: string }) => error.stderr || error.message,
    );
    expect(outcome, `API reports are stale or incomplete:\n${outcome}`).toBe('');
  });

  it('keep the request internals (Context, Handler, Route) out of the main entry', () => {
    const report = readFileSync(join(root, 'packages/core/api/index.api.md'), 'utf8');
    const exported = [...report.matchAll(/^## `([^`]+)`/gm)].map((match) => match[1]);
    expect(exported).not.toContain('Context');
    expect(exported).not.toContain('Handler');
    expect(exported).not.toContain('Route');
    expect(exported).toEqual(
      expect.arrayContaining(['createGatehouse', 'GatehouseOptions', 'ProtocolError']),
    );
  });
});
