#!/usr/bin/env node
/**
 * Generates `docs/error-codes.md`, the one table of Gatehouse's error codes, from the source:
 * - the protocol codes answered to clients, from `ERROR_TABLE` of `src/errors.ts` (status,
 *   challenge, the RFC that defines them, notes);
 * - the stable codes of the errors a host sees, from `ERROR_CODES` of `src/error-codes.ts`, with
 *   the source files that throw each one (found by its literal in `src/`).
 * It also fails when a code literal of `src/` is not in `ERROR_CODES`, a code of `ERROR_CODES` is
 * thrown nowhere, or a `ConfigurationError` is thrown without its `{ code, option }`. `node scripts/error-codes.mjs` writes the file; `--check` fails (exit 1) when
 * it is out of date (run by `src/error-codes.test.ts`).
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const SRC = here('../src');
const DOC = here('../docs/error-codes.md');

const parse = (path) => ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);

/** The object literal of `export const <name> = { … }` (through `as const satisfies …`). */
function objectOf(file, name) {
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (declaration.name.getText(file) !== name) continue;
      let init = declaration.initializer;
      while (init && (ts.isSatisfiesExpression(init) || ts.isAsExpression(init))) init = init.expression;
      if (init && ts.isObjectLiteralExpression(init)) return init;
    }
  }
  throw new Error(`${file.fileName}: no object literal ${name}`);
}

const propertyName = (file, property) => property.name.getText(file).replace(/^['"]|['"]$/g, '');
const text = (node) => (ts.isStringLiteralLike(node) ? node.text : node.getText());
const cell = (value) =>
  value
    .replace(/\|/g, '\\|')
    .replace(/\s*\n\s*/g, ' ')
    .trim();

/** The protocol codes: `ERROR_TABLE` entries, each with the `// RFC …` heading above it and its TSDoc. */
function protocolCodes() {
  const file = parse(join(SRC, 'errors.ts'));
  const source = file.getFullText();
  let definedBy = '';
  const rows = [];
  for (const property of objectOf(file, 'ERROR_TABLE').properties) {
    let note = '';
    for (const range of ts.getLeadingCommentRanges(source, property.getFullStart()) ?? []) {
      const comment = source.slice(range.pos, range.end);
      if (comment.startsWith('//')) definedBy = comment.replace(/^\/\/\s*/, '');
      else note = comment.replace(/^\/\*\*|\*\/$/g, '').replace(/^\s*\*\s?/gm, '');
    }
    const fields = Object.fromEntries(
      property.initializer.properties.map((field) => [propertyName(file, field), text(field.initializer)]),
    );
    rows.push({
      code: propertyName(file, property),
      status: fields.status,
      challenge: fields.challenge === 'true',
      definedBy,
      note,
    });
  }
  return rows;
}

/** The stable codes: `ERROR_CODES` entries. */
function gatehouseCodes() {
  const file = parse(join(SRC, 'error-codes.ts'));
  return objectOf(file, 'ERROR_CODES').properties.map((property) => {
    const fields = Object.fromEntries(
      property.initializer.properties.map((field) => [propertyName(file, field), text(field.initializer)]),
    );
    return { code: propertyName(file, property), thrownAs: fields.thrownAs, meaning: fields.meaning };
  });
}

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

/**
 * Code → the files (relative to src/) whose string literals name it, outside the table itself;
 * and every `new ConfigurationError(message)` without its `{ code, option }`, into `unstated`.
 */
function throwSites(unstated) {
  const sites = new Map();
  for (const path of sourceFiles(SRC)) {
    const where = relative(SRC, path);
    if (where === 'error-codes.ts') continue;
    const file = parse(path);
    const visit = (node) => {
      // jose's own codes (`ERR_JWT_EXPIRED`, `ERR_JWKS_…`, `ERR_JOSE_…`) are compared, not thrown.
      if (
        ts.isStringLiteralLike(node) &&
        /^ERR_[A-Z_]+$/.test(node.text) &&
        !/^ERR_(JW[A-Z]|JOSE)/.test(node.text)
      ) {
        if (!sites.has(node.text)) sites.set(node.text, new Set());
        sites.get(node.text).add(where);
      }
      if (
        ts.isNewExpression(node) &&
        node.expression.getText(file) === 'ConfigurationError' &&
        (node.arguments?.length ?? 0) < 2
      ) {
        const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
        unstated.push(`${where}:${line + 1}: new ConfigurationError without { code, option }`);
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return sites;
}

function markdown(protocol, codes, sites) {
  const lines = [
    '# Error codes',
    '',
    '<!-- Generated from src/errors.ts and src/error-codes.ts by scripts/error-codes.mjs; do not edit. -->',
    '',
    'Every code Gatehouse answers or throws, in two tables: the protocol codes a client sees in an',
    'error answer, and the stable codes of the errors a host sees (thrown at creation, by the',
    "instance's methods, or logged). Messages may be reworded between releases; these codes are not.",
    '',
    '## Protocol error codes',
    '',
    'The `error` field of every error answer (`{ "error", "error_description" }`, RFC 6749 §5.2) and',
    'the `code` of a `ProtocolError`. The status comes from the code; a 401 always carries a',
    '`WWW-Authenticate` challenge (RFC 9110 §15.5.2).',
    '',
    '| Code | Status | Challenge | Defined by | Notes |',
    '| --- | --- | --- | --- | --- |',
    ...protocol.map(
      (row) =>
        `| \`${row.code}\` | ${row.status} | ${row.challenge ? 'yes' : ''} | ${cell(row.definedBy)} | ${cell(row.note)} |`,
    ),
    '',
    '## Gatehouse error codes',
    '',
    'The `code` of `ConfigurationError` (with `option`, the option path), `UsageError` (a `TypeError`,',
    'with `argument`), `OutboundFetchError` and `StoreFullError`, and the `storageCode` of',
    '`StorageUnavailableError` (a `ProtocolError` answered 503, whose `code` is',
    '`temporarily_unavailable`). Branch on them, never on messages:',
    '',
    '```ts',
    "if (error instanceof ConfigurationError && error.code === 'ERR_CONFIG_UNKNOWN_OPTION') …",
    '```',
    '',
    '| Code | Thrown as | Meaning | Thrown in (`src/`) |',
    '| --- | --- | --- | --- |',
    ...codes.map(
      (row) =>
        `| \`${row.code}\` | \`${row.thrownAs}\` | ${cell(row.meaning)} | ${[...(sites.get(row.code) ?? [])]
          .sort()
          .map((path) => `\`${path}\``)
          .join(', ')} |`,
    ),
    '',
  ];
  return lines.join('\n');
}

const protocol = protocolCodes();
const codes = gatehouseCodes();
const unstated = [];
const sites = throwSites(unstated);
const known = new Set(codes.map((row) => row.code));
const problems = [
  ...unstated,
  ...[...sites.keys()]
    .filter((code) => !known.has(code))
    .map((code) => `${code} is used in src/ but not in ERROR_CODES`),
  ...codes
    .filter((row) => !sites.has(row.code))
    .map((row) => `${row.code} is in ERROR_CODES but thrown nowhere`),
];
if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}
const output = markdown(protocol, codes, sites);
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(DOC, 'utf8');
  } catch {}
  if (current !== output) {
    console.error(`Out of date: ${DOC}. Run: pnpm --filter @gatehousejs/core run docs:errors`);
    process.exit(1);
  }
} else {
  writeFileSync(DOC, output);
}
