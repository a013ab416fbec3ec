#!/usr/bin/env node
/**
 * The API reference: TypeDoc over the published declarations of every entry of every package (the
 * same `.d.ts` files as the API reports, so what is documented is what users import), each module
 * named by its import specifier (`@gatehousejs/core/protect`). Written to `docs/api/` (not
 * committed: `pnpm docs:api` builds it; open `docs/api/index.html`).
 *
 * Fails (exit 1) on any TypeDoc warning: a `{@link}` that resolves to nothing, a type the
 * declarations reference but no entry exports, a malformed TSDoc tag. `tests/packaging/api-docs.test.ts`
 * runs it in CI. Needs `pnpm run build` first.
 *
 *   node scripts/api-docs.mjs [--out <dir>]
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Application, Converter, LogLevel, ReflectionKind } from 'typedoc';
import { publishedEntries } from './api-report.mjs';

const root = resolve(import.meta.dirname, '..');
const { values } = parseArgs({ options: { out: { type: 'string', default: join(root, 'docs/api') } } });

const entries = publishedEntries().flatMap((pkg) =>
  pkg.entries.map((entry) => ({
    specifier: entry.key === '.' ? pkg.name : `${pkg.name}/${entry.key.slice(2)}`,
    types: entry.types,
  })),
);
const missing = entries.filter((entry) => !existsSync(entry.types));
if (missing.length > 0) {
  console.error(`api-docs: ${relative(root, missing[0].types)} is missing: run \`pnpm run build\` first`);
  process.exit(1);
}

// TypeDoc documents the files of a TypeScript program: this one holds exactly the declarations.
const work = mkdtempSync(join(tmpdir(), 'gatehouse-api-docs-'));
const tsconfig = join(work, 'tsconfig.json');
writeFileSync(
  tsconfig,
  JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      lib: ['ES2023', 'DOM', 'DOM.Iterable'],
      types: ['node'],
      typeRoots: [join(root, 'node_modules/@types')],
      strict: true,
      skipLibCheck: true,
      noEmit: true,
    },
    files: entries.map((entry) => entry.types),
  }),
);

try {
  const app = await Application.bootstrapWithPlugins({
    name: 'Gatehouse API reference',
    entryPoints: entries.map((entry) => entry.types),
    entryPointStrategy: 'resolve',
    tsconfig,
    out: values.out,
    readme: 'none',
    // Paths into dist/ chunks would mean nothing to a reader.
    disableSources: true,
    excludePrivate: true,
    excludeInternal: true,
    treatWarningsAsErrors: true,
    logLevel: LogLevel.Warn,
    validation: { notExported: true, invalidLink: true, rewrittenLink: true, notDocumented: false },
    sort: ['kind', 'alphabetical'],
  });
  // Name each module as users import it rather than by its path in dist/.
  const byPath = new Map(entries.map((entry) => [resolve(entry.types), entry.specifier]));
  app.converter.on(Converter.EVENT_CREATE_DECLARATION, (context, reflection) => {
    if (!reflection.kindOf(ReflectionKind.Module)) return;
    const symbol = context.getSymbolFromReflection(reflection);
    const file = symbol?.declarations?.[0]?.getSourceFile().fileName;
    const specifier = file && byPath.get(resolve(file));
    if (specifier) reflection.name = specifier;
  });
  const project = await app.convert();
  if (!project) process.exit(1);
  app.validate(project);
  if (app.logger.hasErrors() || app.logger.hasWarnings()) process.exit(1);
  await app.generateDocs(project, values.out);
  if (app.logger.hasErrors() || app.logger.hasWarnings()) process.exit(1);
  console.log(
    `api-docs: ${entries.length} entries of ${publishedEntries().length} packages → ${relative(root, values.out) || values.out}/index.html`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
