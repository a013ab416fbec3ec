#!/usr/bin/env node
/**
 * Generates, from the TSDoc of `src/options.ts` (the one place options are documented):
 * - `docs/options.md`, the options reference that ships in the package;
 * - `src/known-options.generated.ts`, the option names `createGatehouse` accepts, so that a
 *   misspelt option (`scope:` for `scopes:`) is refused at creation instead of silently ignored.
 * `node scripts/options-reference.mjs` writes both; `--check` fails when either is out of date
 * (run by the test beside `resolve-options.ts`).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const SOURCE = here('../src/options.ts');
const DOC = here('../docs/options.md');
const KNOWN = here('../src/known-options.generated.ts');

/** Every exported interface of options.ts: name → { doc, members: [{ name, type, doc, optional }] }. */
function readInterfaces() {
  const file = ts.createSourceFile(SOURCE, readFileSync(SOURCE, 'utf8'), ts.ScriptTarget.Latest, true);
  const docOf = (node) =>
    ts
      .getJSDocCommentsAndTags(node)
      .filter(ts.isJSDoc)
      .map((doc) => ts.getTextOfJSDocComment(doc.comment) ?? '')
      .join('\n')
      .trim();
  const interfaces = new Map();
  const bases = new Map();
  for (const statement of file.statements) {
    if (!ts.isInterfaceDeclaration(statement)) continue;
    const members = statement.members.filter(ts.isPropertySignature).map((member) => ({
      name: member.name.getText(file),
      type: member.type ? member.type.getText(file).replace(/\s+/g, ' ') : 'unknown',
      optional: Boolean(member.questionToken),
      doc: docOf(member),
    }));
    interfaces.set(statement.name.text, { doc: docOf(statement), members });
    const extended = (statement.heritageClauses ?? []).flatMap((clause) =>
      clause.types.map((type) => type.expression.getText(file)),
    );
    bases.set(statement.name.text, extended);
  }
  // Members inherited from interfaces of options.ts (`extends FetchBudgetOptions`) are options too.
  const withInherited = (name, seen = new Set()) => {
    const own = interfaces.get(name);
    if (seen.has(name)) return own.members;
    seen.add(name);
    const inherited = (bases.get(name) ?? [])
      .filter((base) => interfaces.has(base))
      .flatMap((base) => withInherited(base, seen));
    return [...own.members, ...inherited.filter((m) => !own.members.some((o) => o.name === m.name))];
  };
  const resolved = new Map();
  for (const [name, entry] of interfaces) resolved.set(name, { ...entry, members: withInherited(name) });
  return resolved;
}

/** The options tree: option name → nested tree (for option groups declared in options.ts) or true. */
function optionTree(interfaces, name) {
  const tree = {};
  for (const member of interfaces.get(name).members) {
    const nested = member.type.replace(/\s*\|\s*undefined$/, '');
    tree[member.name] = interfaces.has(nested) ? optionTree(interfaces, nested) : true;
  }
  return tree;
}

const cell = (text) => text.replace(/\|/g, '\\|').replace(/\n+/g, ' ');

function markdown(interfaces) {
  const lines = [
    '# Options reference',
    '',
    '<!-- Generated from the TSDoc of src/options.ts by scripts/options-reference.mjs; do not edit. -->',
    '',
    'Every option of `createGatehouse(options)`, as documented where it is declared. Lifetimes are in',
    'seconds. Unknown option names are refused at creation with a `ConfigurationError`.',
    '',
  ];
  const sections = [['GatehouseOptions', 'createGatehouse(options)', '']];
  for (const member of interfaces.get('GatehouseOptions').members) {
    const nested = member.type.replace(/\s*\|\s*undefined$/, '');
    if (interfaces.has(nested)) sections.push([nested, `options.${member.name}`, `${member.name}.`]);
  }
  for (const [name, title, prefix] of sections) {
    const { doc, members } = interfaces.get(name);
    lines.push(`## \`${title}\``, '', ...(doc ? [doc, ''] : []));
    lines.push('| Option | Type | Description |', '| --- | --- | --- |');
    for (const member of members) {
      const type = `\`${cell(member.type)}\`${member.optional ? '' : ' (required)'}`;
      lines.push(`| \`${prefix}${member.name}\` | ${type} | ${cell(member.doc) || '—'} |`);
    }
    lines.push('');
  }
  return lines.join('\n');
}

function knownOptionsModule(interfaces) {
  return [
    '// Generated from src/options.ts by scripts/options-reference.mjs; do not edit.',
    '',
    '/** The option names `createGatehouse` accepts: `true` for a value, a nested tree for a group. */',
    `export const KNOWN_OPTIONS = ${JSON.stringify(optionTree(interfaces, 'GatehouseOptions'), null, 2)} as const;`,
    '',
  ].join('\n');
}

const interfaces = readInterfaces();
const outputs = [
  [DOC, markdown(interfaces)],
  [KNOWN, knownOptionsModule(interfaces)],
];
if (process.argv.includes('--check')) {
  const stale = outputs.filter(([path, text]) => {
    try {
      return readFileSync(path, 'utf8') !== text;
    } catch {
      return true;
    }
  });
  if (stale.length > 0) {
    console.error(
      `Out of date: ${stale.map(([p]) => p).join(', ')}. Run: pnpm --filter @gatehousejs/core run docs:options`,
    );
    process.exit(1);
  }
} else {
  for (const [path, text] of outputs) writeFileSync(path, text);
}
