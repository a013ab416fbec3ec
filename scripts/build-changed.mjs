/**
 * Builds the packages whose sources changed since their last build, and nothing else: `pnpm start`
 * runs it, so a second start on an unchanged checkout begins serving in seconds. A package's build is
 * keyed by a digest of its sources, manifest and build configuration (`dist/.build-digest`); a
 * missing or different digest rebuilds that package with its own `build` script. While it builds,
 * it reports each package started and done, and every 15 s what is still building, so that a first
 * start on a slow or busy machine is not taken for a hang.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
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
    `gatehouse: building ${stale.map((p) => p.name).join(', ')}${first ? ' (first start: every package once; how long depends on the cores and how busy they are, the core package taking the longest; later starts build only what changed)' : ' (sources changed)'}`,
  );
  // One pnpm run over the stale packages: it orders them by dependency (core first) and builds
  // independent ones side by side. Its output is read for progress (`packages/<name> build$ …`
  // when one starts, `packages/<name> build: Done` when it ends) and kept to show on failure.
  const started = Date.now();
  const seconds = (since) => ((Date.now() - since) / 1000).toFixed(1);
  const filters = stale.flatMap((pkg) => ['--filter', `./packages/${pkg.name}`]);
  const child = spawn('pnpm', ['-r', ...filters, 'run', 'build'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const building = new Map();
  const lastLines = [];
  let built = 0;
  createInterface({ input: child.stdout }).on('line', (line) => {
    lastLines.push(line);
    if (lastLines.length > 200) lastLines.shift();
    const step = /^packages\/([\w.-]+) build(\$|: Done)/.exec(line);
    if (!step) return;
    const [, name, what] = step;
    if (what === '$') {
      building.set(name, Date.now());
      console.log(`gatehouse: building ${name}…`);
    } else {
      built += 1;
      console.log(
        `gatehouse: [${built}/${stale.length}] ${name} built in ${seconds(building.get(name) ?? started)} s`,
      );
      building.delete(name);
    }
  });
  const heartbeat = setInterval(() => {
    if (building.size > 0)
      console.log(
        `gatehouse: still building ${[...building.keys()].join(', ')} (${seconds(started)} s so far)`,
      );
  }, 15_000);
  const status = await new Promise((resolve) => child.on('close', (code) => resolve(code)));
  clearInterval(heartbeat);
  if (status !== 0) {
    console.error(lastLines.join('\n'));
    console.error(`gatehouse: the build failed (exit ${status}); see the errors above`);
    process.exit(status ?? 1);
  }
  for (const pkg of stale) writeFileSync(pkg.stampFile, pkg.digest);
  console.log(`gatehouse: built in ${seconds(started)} s`);
}
