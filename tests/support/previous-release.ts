/**
 * The previous release's sources, to run beside this checkout's (the rolling upgrade): the engine
 * packages and the demo's engine selection of a git ref, extracted with `git archive` into a
 * temporary directory, their dependencies linked to this checkout's installed ones, and a tsconfig
 * whose `paths` send `@gatehousejs/*` there, for `startApp({ sources })` (tsx reads the paths).
 *
 * Which release: `GATEHOUSE_PREVIOUS_RELEASE` (any git ref) if set; else the newest tag `v*`;
 * else, while no release has been tagged, {@link LAST_UNTAGGED_RELEASE}.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * No release has been tagged yet: the last commit of the previous round of work (main before
 * issue 43), the version a deployment of this round replaces. Tag releases (`v0.2.0`) and the
 * newest tag is used instead.
 */
export const LAST_UNTAGGED_RELEASE = '35c6f95f4fcce1511a7f9a44f3cef40db4738dbe';

/** What `git archive` takes: the packages an application process loads, and the demo's engine selection. */
const DIRECTORIES = ['packages/core', 'packages/postgres', 'packages/redis', 'examples/demo'];

/** The entry points `@gatehousejs/*` map to, when the release has them. */
const ENTRIES: Readonly<Record<string, string>> = {
  '@gatehousejs/core/adapter': 'packages/core/src/adapter/index.ts',
  '@gatehousejs/core/engine': 'packages/core/src/engine/index.ts',
  '@gatehousejs/core/node': 'packages/core/src/node/index.ts',
  '@gatehousejs/core/protect': 'packages/core/src/protect/index.ts',
  '@gatehousejs/core/ui': 'packages/core/src/ui/index.ts',
  '@gatehousejs/core/testing': 'packages/core/src/testing/index.ts',
  '@gatehousejs/core': 'packages/core/src/index.ts',
  '@gatehousejs/redis': 'packages/redis/src/index.ts',
  '@gatehousejs/postgres': 'packages/postgres/src/index.ts',
  '@gatehousejs/demo': 'examples/demo/src/index.ts',
};

/** The previous release, extracted. */
export interface PreviousRelease {
  /** The ref as given, and the commit it names. */
  readonly ref: string;
  readonly commit: string;
  /** The tsconfig for {@link AppOptions.sources}. */
  readonly sources: string;
  remove(): void;
}

const git = async (...args: string[]) => (await run('git', ['-C', ROOT, ...args])).stdout.trim();

/** The ref of the previous release, and why that one. */
export async function previousReleaseRef(): Promise<{ ref: string; why: string }> {
  const configured = process.env.GATEHOUSE_PREVIOUS_RELEASE;
  if (configured) return { ref: configured, why: 'GATEHOUSE_PREVIOUS_RELEASE' };
  const tags = await git('tag', '--list', 'v*', '--sort=-creatordate').catch(() => '');
  const newest = tags.split('\n').find(Boolean);
  if (newest) return { ref: newest, why: 'the newest release tag' };
  return { ref: LAST_UNTAGGED_RELEASE, why: 'no release tag yet: the last commit of the previous round' };
}

/** Whether this checkout is a shallow clone (its history cut: older commits missing). */
export async function isShallowClone(): Promise<boolean> {
  return (await git('rev-parse', '--is-shallow-repository').catch(() => 'false')) === 'true';
}

/** Extracts `ref`; rejects (with the reason) when git or the commit is missing (a shallow clone). */
export async function extractRelease(ref: string): Promise<PreviousRelease> {
  const commit = await git('rev-parse', '--verify', `${ref}^{commit}`);
  const directory = mkdtempSync(join(tmpdir(), 'gatehouse-previous-'));
  try {
    const archive = join(directory, 'release.tar');
    await git('archive', '--format=tar', '-o', archive, commit, ...DIRECTORIES);
    await run('tar', ['-xf', archive, '-C', directory]);
    rmSync(archive);
    // Its dependencies (pg, ioredis, jose) are this checkout's: the release's source is what differs.
    for (const dir of DIRECTORIES) {
      const installed = join(ROOT, dir, 'node_modules');
      if (existsSync(installed)) symlinkSync(installed, join(directory, dir, 'node_modules'), 'dir');
    }
    const paths = Object.fromEntries(
      Object.entries(ENTRIES)
        .filter(([, file]) => existsSync(join(directory, file)))
        .map(([name, file]) => [name, [file]]),
    );
    const sources = join(directory, 'sources.tsconfig.json');
    writeFileSync(
      sources,
      JSON.stringify({
        extends: join(ROOT, 'tsconfig.json'),
        compilerOptions: { baseUrl: '.', paths },
      }),
    );
    return { ref, commit, sources, remove: () => rmSync(directory, { recursive: true, force: true }) };
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
}
