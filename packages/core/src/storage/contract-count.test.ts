import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The method counts of docs/storage.md ("How many methods") are those of storage/types.ts: each
 * interface's required and optional methods, read from the source, against the table's rows.
 */
const source = readFileSync(new URL('./types.ts', import.meta.url), 'utf8');
const doc = readFileSync(new URL('../../docs/storage.md', import.meta.url), 'utf8');

/**
 * Required and optional methods of each interface declared in types.ts, those of the interfaces it
 * extends (declared in the same file) first.
 */
function methodsOf(text: string): Map<string, { required: string[]; optional: string[] }> {
  const file = ts.createSourceFile('types.ts', text, ts.ScriptTarget.Latest, true);
  const found = new Map<string, { required: string[]; optional: string[] }>();
  for (const statement of file.statements) {
    if (!ts.isInterfaceDeclaration(statement)) continue;
    const methods = { required: [] as string[], optional: [] as string[] };
    for (const clause of statement.heritageClauses ?? []) {
      for (const type of clause.types) {
        const inherited = found.get(type.expression.getText(file));
        if (inherited) {
          methods.required.push(...inherited.required);
          methods.optional.push(...inherited.optional);
        }
      }
    }
    for (const member of statement.members) {
      const isMethod =
        ts.isMethodSignature(member) ||
        (ts.isPropertySignature(member) && member.type !== undefined && ts.isFunctionTypeNode(member.type));
      if (!isMethod || !member.name) continue;
      (member.questionToken ? methods.optional : methods.required).push(member.name.getText(file));
    }
    found.set(statement.name.text, methods);
  }
  return found;
}

/** The rows of the doc's count table: interface, required count, optional count, methods listed. */
function documentedRows(): { name: string; required: number; optional: number; listed: string[] }[] {
  const section = doc.slice(doc.indexOf('## How many methods'), doc.indexOf('## No silent fallback'));
  return section
    .split('\n')
    .filter((line) => /^\| `[A-Z]\w+` /.test(line))
    .map((line) => {
      const cells = line.split('|').map((cell) => cell.trim());
      return {
        name: cells[1]!.replaceAll('`', ''),
        required: Number(cells[3]),
        optional: Number(cells[4]),
        listed: [...cells[5]!.matchAll(/`(\w+)`/g)].map((match) => match[1]!),
      };
    });
}

describe('the documented size of the host contract', () => {
  const methods = methodsOf(source);
  const rows = documentedRows();

  it('lists every store of GatehouseStorage and the two host stores', () => {
    expect(rows.map((row) => row.name)).toEqual([
      'ClientStore',
      'UserStore',
      'GrantStore',
      'ClientRegistry',
      'KeyValueStore',
    ]);
  });

  it('states each interface’s required and optional methods as types.ts declares them', () => {
    for (const row of rows) {
      const declared = methods.get(row.name)!;
      expect({ name: row.name, required: row.required, optional: row.optional }).toEqual({
        name: row.name,
        required: declared.required.length,
        optional: declared.optional.length,
      });
      expect(row.listed).toEqual([...declared.required, ...declared.optional]);
    }
  });

  it('adds them up to the totals the doc states', () => {
    const host = rows.filter((row) => row.name === 'ClientStore' || row.name === 'UserStore');
    const start = host.reduce((sum, row) => sum + row.required, 0);
    const stores = rows.filter((row) => !host.includes(row)).reduce((sum, row) => sum + row.required, 0);
    const optional = rows.reduce((sum, row) => sum + row.optional, 0);
    expect(doc).toContain(`**To get started: ${start} methods.**`);
    expect(doc).toContain(
      `**With your own database for Gatehouse's state: ${start + stores} methods** (the ${start} above and the ${stores} required`,
    );
    expect(doc).toContain(`plus up to ${optional} optional ones`);
  });
});
