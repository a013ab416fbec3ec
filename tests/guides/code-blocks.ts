/**
 * Type-checks the TypeScript code blocks of the guides against the published declarations, so that
 * no guide drifts from the API. Every ```ts and ```tsx block of `packages/core/docs/*.md`, the
 * package READMEs and the root README is checked as a module of its own, in strict mode, with:
 *
 * - **imports** resolved as a user's project would have them installed: `@gatehousejs/*` to the
 *   built `dist/*.d.ts` (their `exports` maps), third-party packages (Express, Next.js, pg, Zod, …)
 *   from the workspace packages that depend on them;
 * - **a file name** when the block's first line names one (`// app/login/actions.ts`,
 *   `// server.mts — run with …`): the block is that file beside the guide's other blocks, so
 *   `import { signIn } from './actions'` finds the block before it;
 * - **what a guide leaves out**, written the way the guides write it: a comment starting with `…`
 *   in an object literal (`// …`, `/* … *\/`, `// …keys, clients, users…`) stands for the other
 *   members, and a `…` in an expression for any value; both become `elided()`, which takes the type
 *   the place asks for, so everything written around them is still checked, unknown options included;
 * - **the names guides use without defining them** (`gatehouse`, `request`, `db`, Gatehouse's own
 *   functions in short snippets), declared once in `guide-context.d.ts` with their real types.
 *
 * A block whose info string says `ignore` (```ts ignore) is not checked: for the rare fragment that
 * is no statement at all (a member to paste into another block, which `tests/guides` runs applied).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The guides: every Markdown page of the core's docs, the package READMEs and the root README. */
export function guideFiles(): string[] {
  const docs = join(root, 'packages/core/docs');
  const packages = join(root, 'packages');
  return [
    join(root, 'README.md'),
    ...readdirSync(packages)
      .map((dir) => join(packages, dir, 'README.md'))
      .filter(existsSync),
    ...readdirSync(docs)
      .filter((file) => file.endsWith('.md'))
      .map((file) => join(docs, file)),
  ];
}

/** One code block of a guide, and the virtual file it is checked as. */
export interface GuideBlock {
  /** The guide, relative to the repository (`packages/core/docs/mcp.md`). */
  readonly guide: string;
  /** The line of the guide where the block's code starts (1-based). */
  readonly line: number;
  readonly code: string;
  /** Where the block is checked: `<guide's folder of blocks>/<file>`. */
  readonly file: string;
}

const FENCE = /^(\s*)```(ts|tsx|typescript)([^\n]*)\n([\s\S]*?)^\1```\s*$/gm;
/** A first line naming the block's file: `// app/login/actions.ts`, `// server.mts — run with …`. */
const NAMED = /^\/\/ ((?:[\w@.[\]-]+\/)*[\w.-]+\.(?:m?ts|tsx))(?:\s|$)/;

/** The checked blocks of `markdown` (the guide at `guide`, relative to the repository). */
export function guideBlocks(guide: string, markdown: string): GuideBlock[] {
  const blocks: GuideBlock[] = [];
  const folder = join(root, '.guide-blocks', guide.replace(/\.md$/, ''));
  for (const match of markdown.matchAll(FENCE)) {
    const [, indent, language, info, body] = match as unknown as [string, string, string, string, string];
    if (/\bignore\b/.test(info)) continue;
    const line = markdown.slice(0, match.index).split('\n').length + 1;
    const code = body
      .split('\n')
      .map((text) => (text.startsWith(indent) ? text.slice(indent.length) : text))
      .join('\n');
    const named = NAMED.exec(code)?.[1];
    const extension = language === 'tsx' ? '.tsx' : '.ts';
    blocks.push({ guide, line, code, file: join(folder, named ?? `block-${line}${extension}`) });
  }
  return blocks;
}

/**
 * The block as compiled: elisions made `elided()` (same lines and columns up to the first
 * replacement on a line), and `export {}` so that it is a module.
 */
export function compilable(code: string): string {
  // A comment that starts with `…` where a member goes (after `{`, `[`, `(` or `,`): the members an
  // object literal leaves out, spread first (`{ ...elided(), ` right after the literal's `{`, so
  // that the members written after it are checked as given). Elsewhere (`// … on the redirect
  // URI:`) it is prose. `/* … */` inline is the same.
  const inserts = new Set<number>();
  let text = code;
  let previous = '';
  let offset = 0;
  for (const line of code.split('\n')) {
    const comment = /^\s*\/\/ …/.test(line) && /[{[(,]$/.test(previous);
    const inline = line.indexOf('/* …');
    if (comment || inline >= 0) {
      const open = openingBrace(code, offset + Math.max(inline, 0));
      if (open >= 0) inserts.add(open + 1);
    }
    const written = line.replace(/(^|\s)\/\/.*$/, '').trimEnd(); // not the `//` of a URL
    if (written) previous = written;
    offset += line.length + 1;
  }
  for (const at of [...inserts].sort((a, b) => b - a))
    text = `${text.slice(0, at)} ...elided(),${text.slice(at)}`;
  // `…` where an expression goes, outside strings and comments (the scanner's unknown token).
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.JSX, text);
  let out = '';
  let last = 0;
  for (let token = scanner.scan(); token !== ts.SyntaxKind.EndOfFileToken; token = scanner.scan()) {
    if (token === ts.SyntaxKind.Unknown && scanner.getTokenText() === '…') {
      out += `${text.slice(last, scanner.getTokenStart())}elided()`;
      last = scanner.getTokenEnd();
    }
  }
  return wrapReturns(`${out}${text.slice(last)}`) + '\nexport {};\n';
}

/** The `{` of the object literal around `at`: the last one before it that is still open. */
function openingBrace(code: string, at: number): number {
  let depth = 0;
  for (let index = at - 1; index >= 0; index--) {
    const char = code[index];
    if (char === '}') depth++;
    else if (char === '{') {
      if (depth === 0) return index;
      depth--;
    }
  }
  return -1;
}

/**
 * A snippet of a handler's body (`if (!result.ok) return result.response;`) is checked as the body of
 * an async function: its statements after the imports are wrapped, on the same lines.
 */
function wrapReturns(code: string): string {
  const file = ts.createSourceFile('block.ts', code, ts.ScriptTarget.Latest, true);
  const returns = (node: ts.Node): boolean =>
    ts.isReturnStatement(node) ||
    (!ts.isFunctionLike(node) && !ts.isClassLike(node) && ts.forEachChild(node, returns) === true);
  if (!file.statements.some((statement) => returns(statement))) return code;
  const first = file.statements.find((statement) => !ts.isImportDeclaration(statement));
  if (!first) return code;
  const start = first.getStart(file);
  return `${code.slice(0, start)}async function guideBlock() { ${code.slice(start)}\n}`;
}

/** Where bare imports are looked up: the workspace packages, which hold every dependency the guides use. */
function lookupDirs(): string[] {
  return ['examples', 'packages'].flatMap((group) =>
    readdirSync(join(root, group))
      .map((dir) => join(root, group, dir))
      .filter((dir) => existsSync(join(dir, 'node_modules'))),
  );
}

const OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
  jsx: ts.JsxEmit.ReactJSX,
  strict: true,
  esModuleInterop: true,
  skipLibCheck: true,
  noEmit: true,
  allowImportingTsExtensions: true,
  types: ['node'],
  typeRoots: [join(root, 'node_modules/@types')],
};

/** One error: `guide:line:column  message`. */
export interface BlockError {
  readonly guide: string;
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

/** Compiles `blocks` together (each a module) and returns every error, mapped to its guide's line. */
export function checkBlocks(blocks: readonly GuideBlock[]): BlockError[] {
  const virtual = new Map(blocks.map((block) => [resolve(block.file), block]));
  const sources = new Map([...virtual].map(([file, block]) => [file, compilable(block.code)]));
  // The context files, checked too (as `.ts`: a `.d.ts` would be skipped by `skipLibCheck`, and an
  // unresolved import there would silently make every name it declares `any`).
  const context = ['guide-context', 'guide-modules'].map((name) => {
    const file = join(root, '.guide-blocks', `${name}.ts`);
    sources.set(file, readFileSync(join(root, 'tests/guides', `${name}.d.ts`), 'utf8'));
    return file;
  });
  const host = ts.createCompilerHost(OPTIONS, true);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (file) => sources.has(resolve(file)) || fileExists.call(host, file);
  host.readFile = (file) => sources.get(resolve(file)) ?? readFile.call(host, file);
  host.getSourceFile = (file, language, ...rest) => {
    const text = sources.get(resolve(file));
    return text === undefined
      ? getSourceFile.call(host, file, language, ...rest)
      : ts.createSourceFile(file, text, language, true);
  };
  const dirs = lookupDirs();
  const resolutionHost = { fileExists: host.fileExists, readFile: host.readFile, realpath: host.realpath };
  host.resolveModuleNames = (names, containing) =>
    names.map((name) => {
      const direct = ts.resolveModuleName(name, containing, OPTIONS, resolutionHost).resolvedModule;
      // A bare import of a block or of the context files: from the workspace packages.
      if (direct || containing.includes('/node_modules/') || name.startsWith('.')) return direct;
      // The first workspace package whose copy has types (`express` has them in one with `@types/express`).
      let untyped: ts.ResolvedModuleFull | undefined;
      for (const dir of dirs) {
        const found = ts.resolveModuleName(
          name,
          join(dir, 'index.ts'),
          OPTIONS,
          resolutionHost,
        ).resolvedModule;
        if (found && /\.d\.[cm]?ts$|\.tsx?$/.test(found.resolvedFileName)) return found;
        untyped ??= found;
      }
      return untyped;
    });
  const program = ts.createProgram([...context, ...virtual.keys()], OPTIONS, host);
  const errors: BlockError[] = [];
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const file = diagnostic.file && resolve(diagnostic.file.fileName);
    const block = file ? virtual.get(file) : undefined;
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    if (!block || !diagnostic.file || diagnostic.start === undefined) {
      const where = diagnostic.file ? relative(root, diagnostic.file.fileName) : 'the compiler';
      errors.push({ guide: where, line: 0, column: 0, message });
      continue;
    }
    const position = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    errors.push({
      guide: block.guide,
      line: block.line + position.line,
      column: position.character + 1,
      message: `${message} (${basename(dirname(block.file))}/${basename(block.file)})`,
    });
  }
  return errors;
}

/** The blocks of every guide. */
export function allGuideBlocks(): GuideBlock[] {
  return guideFiles().flatMap((path) => guideBlocks(relative(root, path), readFileSync(path, 'utf8')));
}
