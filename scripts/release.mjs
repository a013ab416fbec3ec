#!/usr/bin/env node
/**
 * Builds, packs and publishes every published package of `packages/*` (those not `private`) to one
 * registry:
 *
 *     node scripts/release.mjs --registry <url> [--tag <dist-tag>] [--skip-build] [--dry-run]
 *                              [--provenance | --no-provenance]
 *
 * - `pnpm run build` first (all packages), unless `--skip-build`.
 * - Each package is packed with `pnpm pack`, which writes its `workspace:^` dependencies as the
 *   caret range of the version in the repository (`^0.1.0`), exactly as `tests/packaging` checks;
 *   the tarball is then published with `npm publish <tarball> --registry <url>`.
 * - Order: a package after the packages of this repository it depends on, so a registry never
 *   holds an adapter whose core is missing, even if a publish fails half-way.
 * - Provenance: every package's `publishConfig` asks for it (`provenance: true`), which npm can
 *   only honour in a CI that hands it an OIDC identity (GitHub Actions with `id-token: write`,
 *   GitLab CI with `SIGSTORE_ID_TOKEN`) and refuses everywhere else. So it is on where such an
 *   identity is present and off (`--provenance=false`, a note printed) elsewhere — a company
 *   registry published from a laptop, or `tests/registry` — unless `--provenance` or
 *   `--no-provenance` says otherwise.
 * - Authentication is npm's own for that registry (`npm login --registry <url>`, or an `.npmrc`
 *   with `//host/:_authToken=…`): this script reads no credentials.
 *
 * There is no default registry on purpose: the scope is not ours on the public registry yet, and a
 * release goes where it is told. `tests/registry` runs this script against a local verdaccio.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';

const root = fileURLToPath(new URL('../', import.meta.url));

const { values } = parseArgs({
  options: {
    registry: { type: 'string' },
    tag: { type: 'string', default: 'latest' },
    'skip-build': { type: 'boolean', default: false },
    'dry-run': { type: 'boolean', default: false },
    provenance: { type: 'boolean' },
    'no-provenance': { type: 'boolean', default: false },
  },
});

function fail(message) {
  console.error(`release: ${message}`);
  process.exit(1);
}

if (!values.registry) fail('--registry <url> is required (e.g. http://127.0.0.1:4873/)');
let registry;
try {
  registry = new URL(values.registry).href;
} catch {
  fail(`--registry is not a URL: ${values.registry}`);
}

/** Whether npm can sign provenance here: a CI that gives it an OIDC token (npm's own two). */
const provenanceIdentity =
  (process.env.GITHUB_ACTIONS === 'true' && Boolean(process.env.ACTIONS_ID_TOKEN_REQUEST_URL)) ||
  (process.env.GITLAB_CI === 'true' && Boolean(process.env.SIGSTORE_ID_TOKEN));
const provenance = values['no-provenance'] ? false : (values.provenance ?? provenanceIdentity);
if (!provenance)
  console.log(
    `release: publishing without provenance (${values['no-provenance'] ? '--no-provenance' : 'no CI identity to sign with'})`,
  );

/** The packages to publish, dependencies first. */
function publishOrder() {
  const packages = readdirSync(join(root, 'packages'))
    .map((dir) => join(root, 'packages', dir))
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
    .filter(({ manifest }) => !manifest.private);
  const byName = new Map(packages.map((p) => [p.manifest.name, p]));
  const ordered = [];
  const visiting = new Set();
  const visit = (pkg) => {
    if (ordered.includes(pkg)) return;
    if (visiting.has(pkg)) fail(`dependency cycle through ${pkg.manifest.name}`);
    visiting.add(pkg);
    for (const name of Object.keys({ ...pkg.manifest.dependencies, ...pkg.manifest.peerDependencies })) {
      const dependency = byName.get(name);
      if (dependency) visit(dependency);
    }
    ordered.push(pkg);
  };
  for (const pkg of packages) visit(pkg);
  return ordered;
}

const run = (command, args, cwd) =>
  execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });

if (!values['skip-build']) {
  console.log('release: building every package (pnpm run build)');
  execFileSync('pnpm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
}

const packs = mkdtempSync(join(tmpdir(), 'gatehouse-release-'));
try {
  const ordered = publishOrder();
  // Packing is independent per package: all at once. Publishing follows the dependency order.
  const tarballs = await Promise.all(
    ordered.map(async ({ dir, manifest }) => {
      if (!existsSync(join(dir, 'dist')))
        fail(`${manifest.name} has no dist/ (build first, or drop --skip-build)`);
      const destination = join(packs, manifest.name.replace('/', '__'));
      await promisify(execFile)('pnpm', ['pack', '--pack-destination', destination], { cwd: dir });
      const [tarball] = readdirSync(destination);
      if (!tarball) fail(`pnpm pack wrote no tarball for ${manifest.name}`);
      return join(destination, tarball);
    }),
  );
  for (const [index, { manifest }] of ordered.entries()) {
    const args = ['publish', tarballs[index], '--registry', registry, '--tag', values.tag];
    if (manifest.name.startsWith('@')) args.push('--access', 'public');
    // A flag on the command line wins over `publishConfig` (npm ≥ 10).
    args.push(`--provenance=${provenance}`);
    if (values['dry-run']) args.push('--dry-run');
    run('npm', [...args, '--loglevel=error'], root);
    console.log(
      `release: ${values['dry-run'] ? 'would publish' : 'published'} ${manifest.name}@${manifest.version} to ${registry}`,
    );
  }
  console.log(`release: ${ordered.length} packages ${values['dry-run'] ? 'checked' : 'published'}`);
} finally {
  rmSync(packs, { recursive: true, force: true });
}
