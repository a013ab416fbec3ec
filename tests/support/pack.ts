/**
 * The published packages of this repository as a user gets them from the registry: packed exactly as
 * `pnpm publish` would (`pnpm pack`), and installed into a fresh project outside the workspace.
 * Shared by the tests that install them (`tests/packaging`, `tests/quickstarts`). Package names come
 * from each package's `package.json`, never from a list here.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));

/** A package of `packages/*` that is published (not `private`). */
export interface PublishedPackage {
  readonly dir: string;
  readonly name: string;
  readonly version: string;
  /** Its `package.json`, as in the repository (`workspace:*` ranges not yet replaced). */
  readonly manifest: {
    readonly exports?: Readonly<Record<string, unknown>>;
    readonly [field: string]: unknown;
  };
}

/** A packed tarball and the name of the package inside it. */
export interface PackedPackage {
  readonly name: string;
  readonly tarball: string;
}

export const publishedPackages: readonly PublishedPackage[] = readdirSync(join(root, 'packages'))
  .map((dir) => join(root, 'packages', dir))
  .filter((dir) => existsSync(join(dir, 'package.json')))
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
  .filter(({ manifest }) => !manifest.private)
  .map(({ dir, manifest }) => ({ dir, manifest, name: manifest.name, version: manifest.version }));

/** Whether every published package has a build (`pnpm run build`), which packing needs. */
export const packagesBuilt = publishedPackages.every(({ dir }) => existsSync(join(dir, 'dist')));

/** Packs every published package into `destination` (created when needed). */
export async function packPublished(destination: string): Promise<PackedPackage[]> {
  // All at once: each `pnpm pack` spends most of its time starting pnpm, not packing.
  await Promise.all(
    publishedPackages.map(({ dir }) =>
      run('pnpm', ['pack', '--pack-destination', destination], { cwd: dir }),
    ),
  );
  const tarballs = readdirSync(destination).map((file) => join(destination, file));
  return Promise.all(
    tarballs.map(async (tarball) => ({ name: String((await packedManifest(tarball)).name), tarball })),
  );
}

/** The `package.json` inside a tarball, as the registry would serve it. */
export async function packedManifest(
  tarball: string,
): Promise<Record<string, Record<string, string> | string>> {
  const { stdout } = await run('tar', ['-xzOf', tarball, 'package/package.json']);
  return JSON.parse(stdout);
}

/**
 * Creates `project` afresh (no workspace above it, no `"type"`: a CommonJS package like the one
 * `npm init` and `pnpm init` write; with `npmInit`, the very `package.json` of `npm init -y`) and
 * installs `specs` with `manager`. A spec naming a packed
 * package (`@…/core`) installs its tarball; any other spec (`express@5`) comes from the registry,
 * or from the package manager's store when it is there already (`--prefer-offline`).
 */
export async function installFreshProject(
  project: string,
  manager: 'npm' | 'pnpm',
  packed: readonly PackedPackage[],
  specs: readonly string[],
  { npmInit = false }: { readonly npmInit?: boolean } = {},
): Promise<void> {
  rmSync(project, { recursive: true, force: true });
  mkdirSync(project, { recursive: true });
  const tarballOf = new Map(packed.map(({ name, tarball }) => [name, `file:${tarball}`]));
  // pnpm resolves a dependency of a tarball (`@…/core: 0.1.0`) from the registry even when the same
  // version is being installed from a file, so the local tarballs stand in for the registry through
  // overrides, as publishing would make them. npm dedupes them by itself.
  const manifest = {
    name: 'fresh-app',
    private: true,
    ...(manager === 'pnpm' ? { pnpm: { overrides: Object.fromEntries(tarballOf) } } : {}),
  };
  if (npmInit && manager === 'npm') await run('npm', ['init', '-y'], { cwd: project });
  else writeFileSync(join(project, 'package.json'), JSON.stringify(manifest));
  const resolved = specs.map((spec) => tarballOf.get(spec) ?? spec);
  const args =
    manager === 'npm'
      ? ['install', '--no-audit', '--no-fund', '--loglevel=error', '--prefer-offline', ...resolved]
      : ['add', '--config.confirmModulesPurge=false', '--prefer-offline', ...resolved];
  await run(manager, args, { cwd: project, maxBuffer: 16 * 1024 * 1024 });
}
