/**
 * Runs once before the conformance files: makes sure what the target processes load is current.
 * The examples import the packages' built `dist/` (through their exports maps, as a user would),
 * and `next start` serves a production build. Both are rebuilt only when older than their sources,
 * so `pnpm test` (which has just built the packages) pays only for `next build`, once, when the
 * Next.js example or what it bundles changed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const PACKAGES = ['core', 'express', 'koa', 'hono', 'fastify', 'next'];
// Loaded by the demo only when GATEHOUSE_STORE names them (the Redis Cluster suite): built too, but
// not bundled by Next.
const ENGINES = ['redis', 'postgres'];

/** Newest modification time (ms) of the files under `path`, skipping build output. */
function newest(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = 0;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry === '.next' || entry === 'dist' || entry.endsWith('.test.ts'))
      continue;
    latest = Math.max(latest, newest(join(path, entry)));
  }
  return latest;
}

function run(command: string, args: string[], cwd: string): void {
  execFileSync(command, args, {
    cwd,
    stdio: 'inherit',
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
  });
}

export default function setup(): void {
  const stale = [...PACKAGES, ...ENGINES].filter((name) => {
    const dir = join(root, 'packages', name);
    return newest(join(dir, 'dist')) < Math.max(newest(join(dir, 'src')), newest(join(dir, 'package.json')));
  });
  if (stale.length > 0) {
    run('pnpm', stale.flatMap((name) => ['--filter', `@gatehousejs/${name}`]).concat('run', 'build'), root);
  }

  const next = join(root, 'examples', 'next');
  const built = newest(join(next, '.next', 'BUILD_ID'));
  const inputs = Math.max(
    newest(join(next, 'src')),
    newest(join(next, 'next.config.mjs')),
    newest(join(root, 'examples', 'demo', 'src')),
    ...PACKAGES.map((name) => newest(join(root, 'packages', name, 'dist'))),
  );
  if (built < inputs) run(join(next, 'node_modules', '.bin', 'next'), ['build'], next);
}
