#!/usr/bin/env node
/**
 * API reports: for every entry of every published package, the names its built `.d.ts` exports,
 * each with its kind and its declaration as a user's compiler sees it (comments removed, one stable
 * order), in `packages/<pkg>/api/<entry>.api.md`. A change of the public surface then shows in review
 * as a change of these files, and `tests/packaging/api-report.test.ts` fails when they are stale.
 *
 * Works on `dist/` (run `pnpm run build` first): the published `.d.ts` is what users get, shared
 * chunks and all. The TypeScript compiler resolves every export through those chunks.
 *
 * A name whose TSDoc says `@deprecated` is marked so in its heading (`(function, deprecated)`).
 *
 * Also lists, per entry, the types its declarations reference that no entry of the package exports
 * ("referenced, not exported"): a user can meet such a type in an option or a result but not name
 * it. The test requires that list to be empty.
 *
 *   node scripts/api-report.mjs           write the reports
 *   node scripts/api-report.mjs --check   exit 1 when a report is stale (prints the diff)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Published packages (not `private`) with the `.d.ts` of each `exports` entry. */
export function publishedEntries() {
  const packagesDir = join(root, 'packages');
  return readdirSync(packagesDir)
    .map((dir) => join(packagesDir, dir))
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
    .filter(({ manifest }) => !manifest.private)
    .map(({ dir, manifest }) => ({
      dir,
      name: manifest.name,
      entries: Object.entries(manifest.exports ?? {})
        .filter(([key]) => key !== './package.json')
        .map(([key, target]) => ({
          key,
          // `.` → index, `./engine` → engine: the report's file name.
          file: key === '.' ? 'index' : key.slice(2).replaceAll('/', '-'),
          types: join(dir, target.import.types),
        })),
    }));
}

const KINDS = [
  [ts.SymbolFlags.Class, 'class'],
  [ts.SymbolFlags.Function, 'function'],
  [ts.SymbolFlags.Enum, 'enum'],
  [ts.SymbolFlags.Variable, 'const'],
  [ts.SymbolFlags.Interface, 'interface'],
  [ts.SymbolFlags.TypeAlias, 'type'],
  [ts.SymbolFlags.Namespace, 'namespace'],
];

function kindOf(symbol) {
  for (const [flag, name] of KINDS) if (symbol.flags & flag) return name;
  return 'unknown';
}

/** A runtime value (something `import` hands over at run time), as opposed to a type only. */
function isValue(symbol) {
  return (symbol.flags & ts.SymbolFlags.Value) !== 0;
}

const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });

/** The declaration's text without comments, `export`/`declare` dropped (the report says it is exported). */
function declarationText(node) {
  const target = ts.isVariableDeclaration(node) ? node.parent.parent : node;
  const text = printer.printNode(ts.EmitHint.Unspecified, target, target.getSourceFile());
  return text.replace(/^(export )?(declare )?/, '');
}

/** Every named type a declaration mentions (type references, heritage clauses, `typeof` queries). */
function referencedSymbols(node, checker) {
  const found = [];
  const visit = (child) => {
    let name;
    if (ts.isTypeReferenceNode(child)) name = child.typeName;
    else if (ts.isExpressionWithTypeArguments(child)) name = child.expression;
    else if (ts.isTypeQueryNode(child)) name = child.exprName;
    if (name) {
      let symbol = checker.getSymbolAtLocation(ts.isQualifiedName(name) ? name.right : name);
      if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
      if (symbol) found.push(symbol);
    }
    ts.forEachChild(child, visit);
  };
  ts.forEachChild(node, visit);
  return found;
}

/** The report of each entry of one package: `{ file, text }`. */
export function packageReports(pkg) {
  const roots = pkg.entries.map((entry) => entry.types);
  for (const file of roots)
    if (!existsSync(file))
      throw new Error(`${relative(root, file)} is missing: run \`pnpm run build\` first`);
  const program = ts.createProgram(roots, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    types: ['node'],
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const distDir = join(pkg.dir, 'dist') + sep;
  // Declared only here: a module augmentation (`declare module 'fastify'`) merges with the other
  // package's declaration, which that package exports.
  const ownDeclaration = (symbol) =>
    symbol.declarations?.length > 0 &&
    symbol.declarations.every((d) => d.getSourceFile().fileName.startsWith(distDir));

  // Which entry exports each symbol of the package, so a reference across entries is allowed.
  const exportedBy = new Map();
  const exportsOf = new Map();
  for (const entry of pkg.entries) {
    const source = program.getSourceFile(entry.types);
    const moduleSymbol = checker.getSymbolAtLocation(source);
    const list = (moduleSymbol ? checker.getExportsOfModule(moduleSymbol) : []).map((exported) => {
      const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      if (!exportedBy.has(target)) exportedBy.set(target, []);
      exportedBy.get(target).push(entry.key);
      return { name: exported.getName(), target };
    });
    list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    exportsOf.set(entry, list);
  }

  return pkg.entries.map((entry) => {
    const list = exportsOf.get(entry);
    const specifier = entry.key === '.' ? pkg.name : `${pkg.name}/${entry.key.slice(2)}`;
    const values = list.filter(({ target }) => isValue(target)).length;

    // Walk every declaration reachable from the entry's exports, within this package's dist.
    const unexported = new Map();
    const fromOtherEntries = new Map();
    const seen = new Set();
    const queue = list.map(({ target }) => target);
    while (queue.length > 0) {
      const symbol = queue.pop();
      if (seen.has(symbol)) continue;
      seen.add(symbol);
      for (const declaration of symbol.declarations ?? []) {
        for (const referenced of referencedSymbols(declaration, checker)) {
          if (referenced.flags & ts.SymbolFlags.TypeParameter || !ownDeclaration(referenced)) continue;
          const entries = exportedBy.get(referenced);
          if (!entries) unexported.set(referenced.getName(), referenced);
          else if (!entries.includes(entry.key)) fromOtherEntries.set(referenced.getName(), entries);
          queue.push(referenced);
        }
      }
    }

    const lines = [
      `# API report: \`${specifier}\``,
      '',
      `<!-- Generated by \`pnpm api:report\` from ${relative(pkg.dir, entry.types).split(sep).join('/')}; do not edit. -->`,
      '',
      `${list.length} exports: ${values} runtime values, ${list.length - values} types only.`,
      '',
    ];
    if (fromOtherEntries.size > 0) {
      lines.push('Types referenced here and exported by another entry of the package:', '');
      for (const [name, entries] of [...fromOtherEntries].sort(([a], [b]) => (a < b ? -1 : 1)))
        lines.push(
          `- \`${name}\`: ${entries.map((key) => `\`${key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`}\``).join(', ')}`,
        );
      lines.push('');
    }
    if (unexported.size > 0) {
      lines.push('Referenced, not exported by any entry (a user meets them but cannot name them):', '');
      for (const name of [...unexported.keys()].sort()) lines.push(`- \`${name}\``);
      lines.push('');
    }
    for (const { name, target } of list) {
      // `deprecated` in the heading: `scripts/semver-check.mjs` lets a major remove only such names.
      const deprecated = (target.declarations ?? []).some((d) => ts.getJSDocDeprecatedTag(d));
      lines.push(`## \`${name}\` (${kindOf(target)}${deprecated ? ', deprecated' : ''})`, '', '```ts');
      const declarations = (target.declarations ?? []).filter((d) => !ts.isSourceFile(d));
      for (const declaration of declarations) lines.push(declarationText(declaration));
      lines.push('```', '');
    }
    return {
      path: join(pkg.dir, 'api', `${entry.file}.api.md`),
      text: `${lines.join('\n').trimEnd()}\n`,
      exports: list.length,
      values,
      unexported: [...unexported.keys()].sort(),
    };
  });
}

/** Every report of every published package. */
export function allReports() {
  return publishedEntries().flatMap((pkg) => packageReports(pkg));
}

/** A unified diff of the committed report against the generated one (`diff -u`), for the message. */
function diffOf(path, text) {
  const result = spawnSync('diff', ['-u', existsSync(path) ? path : '/dev/null', '-'], {
    input: text,
    encoding: 'utf8',
  });
  return result.stdout || `(no diff output; ${result.error?.message ?? 'diff failed'})`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  let failed = false;
  for (const report of allReports()) {
    const where = relative(root, report.path);
    if (report.unexported.length > 0) {
      failed = true;
      console.error(`${where}: referenced but exported by no entry: ${report.unexported.join(', ')}`);
    }
    const current = existsSync(report.path) ? readFileSync(report.path, 'utf8') : undefined;
    if (current === report.text) continue;
    if (check) {
      failed = true;
      console.error(`stale: ${where}\n${diffOf(report.path, report.text)}`);
    } else {
      mkdirSync(dirname(report.path), { recursive: true });
      writeFileSync(report.path, report.text);
      console.log(`wrote ${where} (${report.exports} exports: ${report.values} runtime values)`);
    }
  }
  if (failed && check) console.error('fix: `pnpm run build && pnpm api:report`, then commit packages/*/api/');
  if (failed) process.exit(1);
}
