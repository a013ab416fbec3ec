/**
 * Reads an adapter README's quick start exactly as a user would copy it. The conventions relied on
 * (stated in each README beside its quick start):
 *
 * - the install command is the first line starting with `pnpm add ` inside a ```sh block;
 * - the quick start is the section whose heading starts with `## Quick start`, up to the next `## `;
 * - every ```ts block in it is one file, named by the comment on its first line (`// app/me/route.ts`,
 *   optionally followed by ` — ` and prose); a single-file quick start says how to run it there
 *   (`run with \`npx tsx server.mts\``).
 */
import { readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';

/** One file of a quick start. */
export interface QuickStartFile {
  /** Relative path, from the comment on the block's first line. */
  readonly path: string;
  /** The block's text, first line included, as pasted. */
  readonly code: string;
  /** The command of a "run with `…`" note in that first line, if any. */
  readonly runWith?: string;
}

/** What the README tells a new user to install and paste. */
export interface QuickStart {
  /** The packages of the README's `pnpm add` line. */
  readonly install: readonly string[];
  readonly files: readonly QuickStartFile[];
}

/**
 * The quick start of the README at `readmePath`; throws, naming the README, when it breaks the
 * conventions. A guide with other conventions names its `section` heading and its `install`
 * command (`npm install `).
 */
export function readQuickStart(
  readmePath: string,
  { section: heading = 'Quick start', install: command = 'pnpm add ' } = {},
): QuickStart {
  const readme = readFileSync(readmePath, 'utf8');
  const fail = (why: string) => new Error(`${readmePath}: ${why}`);

  const installLine = fencedBlocks(readme, 'sh')
    .flatMap((block) => block.split('\n'))
    .find((line) => line.startsWith(command));
  if (!installLine) throw fail(`no \`${command}…\` line in a \`\`\`sh block`);
  const install = installLine.slice(command.length).trim().split(/\s+/);

  const start = readme.search(new RegExp(`^## ${heading}`, 'm'));
  if (start < 0) throw fail(`no "## ${heading}" section`);
  const rest = readme.slice(start + 1);
  const next = rest.search(/^## /m);
  const text = next < 0 ? rest : rest.slice(0, next);

  const files = fencedBlocks(text, 'ts').map((code): QuickStartFile => {
    const path = /^\/\/ (\S+)/.exec(code)?.[1];
    if (!path) throw fail(`a quick-start block does not start with a "// <file path>" comment:\n${code}`);
    if (isAbsolute(path) || path.split('/').includes('..')) throw fail(`"${path}" is not inside the project`);
    const runWith = /run with `([^`]+)`/.exec(code.split('\n', 1)[0]!)?.[1];
    return runWith ? { path, code, runWith } : { path, code };
  });
  if (files.length === 0) throw fail('no ```ts block in the quick start');
  return { install, files };
}

/** The bodies of the fenced code blocks of `language` in `markdown` (```ts, ```ts ignore, …). */
export function fencedBlocks(markdown: string, language: string): string[] {
  const fence = new RegExp(`^\`\`\`${language}(?: [^\\n]*)?\\n([\\s\\S]*?)^\`\`\`$`, 'gm');
  return [...markdown.matchAll(fence)].map((match) => match[1]!);
}
