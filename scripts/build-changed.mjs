/**
 * Builds the packages whose sources changed since their last build, and nothing else: `pnpm start`
 * runs it, so a second start on an unchanged checkout begins serving in seconds. A package's build is
 * keyed by a digest of its sources, manifest and build configuration (`dist/.build-digest`); a
 * missing or different digest rebuilds that package with its own `build` script.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const shared = ['tsup.shared.ts', 'tsconfig.json'].map((file) => join(root, file));

/** Every file under `dir` (sorted), tests included: cheap, and never wrong. */
function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else out.push(path);
  }
  return out;
}

function digestOf(dir) {
  const hash = createHash('sha256');
  const inputs = [
    ...filesUnder(join(dir, 'src')),
    ...readdirSync(dir)
      .filter((name) => /^(package\.json|tsup\.config\.ts|tsconfig.*\.json)$/.test(name))
      .map((name) => join(dir, name)),
    ...shared,
  ];
  for (const file of inputs) {
    hash.update(relative(root, file));
    hash.update('\0');
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}

const packagesDir = join(root, 'packages');
const packages = readdirSync(packagesDir).filter((name) => statSync(join(packagesDir, name)).isDirectory());
const stale = [];
for (const name of packages) {
  const dir = join(packagesDir, name);
  const digest = digestOf(dir);
  const stampFile = join(dir, 'dist', '.build-digest');
  const built = existsSync(stampFile) ? readFileSync(stampFile, 'utf8') : '';
  if (built !== digest) stale.push({ name, dir, digest, stampFile, first: built === '' });
}

if (stale.length === 0) {
  console.log(`gatehouse: ${packages.length} packages up to date, nothing to build`);
} else {
  const first = stale.every((p) => p.first);
  console.log(
    `gatehouse: building ${stale.map((p) => p.name).join(', ')}${first ? ' (first start: every package once, about half a minute; later starts build only what changed)' : ' (sources changed)'}`,
  );
  // One pnpm run over the stale packages: it orders them by dependency (core first) and builds
  // independent ones side by side.
  const started = Date.now();
  const filters = stale.flatMap((pkg) => ['--filter', `./packages/${pkg.name}`]);
  const result = spawnSync('pnpm', ['-r', ...filters, 'run', 'build'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (result.status !== 0) {
    console.error(`gatehouse: the build failed (exit ${result.status}); see the errors above`);
    process.exit(result.status ?? 1);
  }
  for (const pkg of stale) writeFileSync(pkg.stampFile, pkg.digest);
  console.log(`gatehouse: built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
