/**
 * `scripts/semver-check.mjs` (run by `pnpm lint`) on a temporary copy of this repository's
 * manifests and API reports, committed and tagged `v0.1.0` as a release would be: an export
 * removed on a branch fails without a major changeset and passes with one (when it was deprecated
 * in the release); a declaration that only grew needs a minor, one that changed needs a major;
 * a version already bumped counts as the changeset.
 */
import { execFile, execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const script = join(root, 'scripts/semver-check.mjs');
const CORE_INDEX = 'packages/core/api/index.api.md';

let repo = '';
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], {
    cwd: repo,
    encoding: 'utf8',
    stdio: 'pipe',
  });

/** The check's verdict on the copy: exit code and everything it printed. */
async function check(): Promise<{ code: number; output: string }> {
  return run('node', [script, '--root', repo]).then(
    ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: error.code ?? -1,
      output: `${error.stdout ?? ''}${error.stderr ?? ''}`,
    }),
  );
}

/** The exports of a report, in order: name, kind and the text of its section. */
function sections(text: string): { name: string; kind: string; text: string }[] {
  return text
    .split(/^(?=## )/m)
    .slice(1)
    .map((section) => {
      const [, name, kind] = /^## `([^`]+)` \(([^)]+)\)/.exec(section)!;
      return { name: name!, kind: kind!, text: section };
    });
}

const read = (path: string) => readFileSync(join(repo, path), 'utf8');
const write = (path: string, text: string) => writeFileSync(join(repo, path), text);
const changeset = (name: string, bump: string) =>
  write(`.changeset/${name}.md`, `---\n"@gatehousejs/core": ${bump}\n---\n\nA change.\n`);

/** The first export of the core's main entry of `kind` whose declaration matches `code`. */
function pick(kind: string, code: RegExp = /./) {
  const found = sections(read(CORE_INDEX)).find((s) => s.kind === kind && code.test(s.text));
  if (!found) throw new Error(`no ${kind} matching ${code} in ${CORE_INDEX}`);
  return found;
}

function replaceSection(name: string, next: string) {
  const text = read(CORE_INDEX);
  const section = sections(text).find((s) => s.name === name)!;
  write(CORE_INDEX, text.replace(section.text, next));
}

let deprecated = '';
let kept = '';

beforeAll(() => {
  repo = mkdtempSync(join(tmpdir(), 'gatehouse-semver-'));
  for (const dir of readdirSync(join(root, 'packages'))) {
    const from = join(root, 'packages', dir);
    if (!existsSync(join(from, 'package.json'))) continue;
    mkdirSync(join(repo, 'packages', dir), { recursive: true });
    cpSync(join(from, 'package.json'), join(repo, 'packages', dir, 'package.json'));
    if (existsSync(join(from, 'api')))
      cpSync(join(from, 'api'), join(repo, 'packages', dir, 'api'), { recursive: true });
  }
  mkdirSync(join(repo, '.changeset'));
  cpSync(join(root, '.changeset/config.json'), join(repo, '.changeset/config.json'));
  git('init', '-q', '-b', 'main');
  // The release: one function of the main entry deprecated in it (its TSDoc said @deprecated).
  const functions = sections(read(CORE_INDEX)).filter((s) => s.kind === 'function');
  deprecated = functions[0]!.name;
  kept = functions[1]!.name;
  replaceSection(deprecated, functions[0]!.text.replace('(function)', '(function, deprecated)'));
  git('add', '-A');
  git('commit', '-qm', 'release 0.1.0');
  git('tag', 'v0.1.0');
});

afterAll(() => {
  if (repo) rmSync(repo, { recursive: true, force: true });
});

beforeEach(() => {
  git('checkout', '-q', '-f', 'main');
  git('clean', '-qfd');
});

describe('semver check against the last release tag', () => {
  it('passes when the API is as released', async () => {
    const { code, output } = await check();
    expect(output).toContain('every API change since v0.1.0 has its version bump');
    expect(code).toBe(0);
  });

  it('fails on an export removed on a branch without a major changeset, passes with one', async () => {
    git('checkout', '-q', '-b', 'remove-export');
    replaceSection(deprecated, '');
    git('commit', '-qam', `remove ${deprecated}`);
    let { code, output } = await check();
    expect(code).toBe(1);
    expect(output).toContain(`major  index: ${deprecated} removed`);
    expect(output).toContain('add a changeset: pnpm changeset, @gatehousejs/core: major');

    changeset('remove', 'minor');
    ({ code, output } = await check());
    expect(code).toBe(1);
    expect(output).toContain('granted: minor');

    changeset('remove', 'major');
    ({ code, output } = await check());
    expect(output).toContain('granted: major');
    expect(code).toBe(0);
  });

  it('refuses to remove a name that was not deprecated in the release, even in a major', async () => {
    replaceSection(kept, '');
    changeset('remove', 'major');
    const { code, output } = await check();
    expect(code).toBe(1);
    expect(output).toContain(`index: ${kept} removed without being deprecated in v0.1.0`);
  });

  it('asks a minor for an optional member, a major for a required one', async () => {
    const options = pick('interface', /\n {4}readonly \w+\?: /);
    const grown = options.text.replace(/\n}\n/, '\n    readonly addedInThisTest?: boolean;\n}\n');
    replaceSection(options.name, grown);
    let { code, output } = await check();
    expect(code).toBe(1);
    expect(output).toContain(`a minor change; no changeset names it`);
    expect(output).toContain(`minor  index: ${options.name}: member addedInThisTest added`);
    changeset('grow', 'patch');
    expect((await check()).code).toBe(1);
    changeset('grow', 'minor');
    expect((await check()).code).toBe(0);

    replaceSection(options.name, grown.replace('addedInThisTest?:', 'addedInThisTest:'));
    ({ code, output } = await check());
    expect(code).toBe(1);
    expect(output).toContain(`major  index: ${options.name}: new required member addedInThisTest`);
  });

  it('asks a minor for a new optional parameter or union member, a major for a required parameter or a lost member', async () => {
    const fn = pick('function', /\(\w+: string\)/);
    const union = pick('type', /= '[^']+' \| '/);
    replaceSection(fn.name, fn.text.replace(/\((\w+): string\)/, '($1: string, addedInThisTest?: number)'));
    replaceSection(union.name, union.text.replace(/;\n```/, " | 'added_in_this_test';\n```"));
    changeset('grow', 'minor');
    let { code, output } = await check();
    expect(output).toContain(`minor  index: ${fn.name}: gained optional parameters`);
    expect(output).toContain(`minor  index: ${union.name}: union gained 'added_in_this_test'`);
    expect(code).toBe(0);

    replaceSection(fn.name, fn.text.replace(/\((\w+): string\)/, '($1: string, addedInThisTest: number)'));
    replaceSection(union.name, union.text.replace(/ \| '[^']+';\n```/, ';\n```'));
    ({ code, output } = await check());
    expect(code).toBe(1);
    expect(output).toContain(`major  index: ${fn.name}: a signature changed`);
    expect(output).toMatch(new RegExp(`major  index: ${union.name}: union lost '`));
  });

  it('counts a version already bumped (pnpm release:version) as the changeset', async () => {
    replaceSection(deprecated, '');
    expect((await check()).code).toBe(1);
    const manifest = JSON.parse(read('packages/core/package.json'));
    write('packages/core/package.json', JSON.stringify({ ...manifest, version: '1.0.0' }));
    const { code, output } = await check();
    expect(output).toContain('granted: major');
    expect(code).toBe(0);
  });
});
