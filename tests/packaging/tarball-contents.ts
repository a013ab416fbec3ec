/**
 * What a packed tarball may hold: the files a user installs, nothing of the repository's working
 * material. Checked on every tarball `pnpm pack` writes (`install.test.ts`), and on made-up file
 * lists (`tarball-contents.test.ts`) so that each rule is seen to refuse what it names.
 *
 * - No sources, tests or fixtures (`src/`, `test/`, `*.test.*`): the build is what is published.
 * - No source maps: the build makes none (`tsup.shared.ts`: the output is not minified, so a stack
 *   trace reads as it is), and maps embedding the sources made up most of the core tarball.
 * - No secrets: no `.env`, key or keystore files, no `.npmrc`, and no text holding a PEM private
 *   key (also inside a string literal, `\n` escaped), a private JWK member `d`, or a registry / cloud access token.
 * - Under `dist/`, built JavaScript and declarations only.
 * - Within a size budget per package, so a file swept in by `files` shows as a failure.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One file of a tarball, its path relative to the package root (`dist/index.js`). */
export interface TarballFile {
  readonly path: string;
  readonly bytes: number;
  readonly text: string;
}

/** Paths no tarball may hold, each with the reason printed when one does. */
const FORBIDDEN_PATHS: readonly (readonly [RegExp, string])[] = [
  [/(^|\/)(src|test|tests|__tests__|fixtures?)\//, 'sources and tests are not published'],
  [/\.(test|spec)\.[cm]?[jt]sx?$/, 'a test file'],
  [/\.map$/, 'a source map (the build makes none: tsup.shared.ts)'],
  [/(^|\/)\.env(\.[^/]*)?$/, 'an environment file (secrets)'],
  [/\.(pem|key|p12|pfx|jks|keystore)$/i, 'a key or keystore file'],
  [/(^|\/)id_(rsa|ecdsa|ed25519)(\.pub)?$/, 'an SSH key'],
  [/private[^/]*\.jwk(\.json)?$/i, 'a private JWK file'],
  [/(^|\/)\.npmrc$/, 'an .npmrc (registry credentials)'],
  [/\.tsbuildinfo$/, 'a TypeScript build cache'],
];

/** Text no published file may contain: private keys and access tokens. */
const SECRET_PATTERNS: readonly (readonly [RegExp, string])[] = [
  [
    /-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED )?PRIVATE KEY-----(?:\s|\\n)*[A-Za-z0-9+/=\s\\]{40,}/,
    'a PEM private key',
  ],
  [/"d"\s*:\s*"[A-Za-z0-9_-]{20,}"/, 'a private JWK member "d"'],
  [/\bnpm_[A-Za-z0-9]{36}\b/, 'an npm access token'],
  [/\bgh[pousr]_[A-Za-z0-9]{36}\b/, 'a GitHub token'],
  [/\bAKIA[0-9A-Z]{16}\b/, 'an AWS access key id'],
];

/** What `dist/` may hold: the built JavaScript and its declarations. */
const DIST_FILE = /^dist\/.+\.(js|cjs|mjs|d\.ts|d\.cts|d\.mts)$/;

/** Unpacked bytes a tarball may reach: the core holds 7 entries and its guides, the rest far less. */
export const SIZE_BUDGET: Readonly<Record<string, number>> = { '@gatehousejs/core': 4 * 1024 * 1024 };
const DEFAULT_BUDGET = 1024 * 1024;

/** Unpacks `tarball` into a temporary directory and reads every file (removed afterwards). */
export async function readTarball(tarball: string): Promise<TarballFile[]> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-tarball-'));
  try {
    await run('tar', ['-xzf', tarball, '-C', dir]);
    const root = join(dir, 'package');
    const files: TarballFile[] = [];
    const walk = (at: string) => {
      for (const entry of readdirSync(at, { withFileTypes: true })) {
        const path = join(at, entry.name);
        if (entry.isDirectory()) walk(path);
        else
          files.push({
            path: relative(root, path).split('\\').join('/'),
            bytes: statSync(path).size,
            text: readFileSync(path, 'latin1'),
          });
      }
    };
    walk(root);
    return files.sort((a, b) => (a.path < b.path ? -1 : 1));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every rule `files` breaks, one line each naming the file; empty when the tarball is clean. */
export function tarballProblems(name: string, files: readonly TarballFile[]): string[] {
  const problems: string[] = [];
  for (const file of files) {
    for (const [pattern, reason] of FORBIDDEN_PATHS)
      if (pattern.test(file.path)) problems.push(`${name}: ${file.path}: ${reason}`);
    if (file.path.startsWith('dist/') && !DIST_FILE.test(file.path))
      problems.push(`${name}: ${file.path}: dist/ holds built JavaScript and declarations only`);
    for (const [pattern, reason] of SECRET_PATTERNS)
      if (pattern.test(file.text)) problems.push(`${name}: ${file.path}: contains ${reason}`);
  }
  const total = files.reduce((sum, file) => sum + file.bytes, 0);
  const budget = SIZE_BUDGET[name] ?? DEFAULT_BUDGET;
  if (total > budget) problems.push(`${name}: ${total} bytes unpacked, over its budget of ${budget}`);
  return problems;
}

/** The listing printed in CI: every file with its size, and the total. */
export function listing(name: string, tarballBytes: number, files: readonly TarballFile[]): string {
  const total = files.reduce((sum, file) => sum + file.bytes, 0);
  const lines = files.map((file) => `  ${String(file.bytes).padStart(9)}  ${file.path}`);
  return `${name}: ${files.length} files, ${total} bytes unpacked, ${tarballBytes} bytes packed\n${lines.join('\n')}`;
}
