/**
 * docs/architecture.md describes the system as it is: its index from specification to source and
 * test files names files that exist, every row with both, and history (rounds, issues, benchmark
 * runs) lives in CHANGELOG.md instead.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8');

/** The rows of the table under "Where each specification lives": [specification, source, tests]. */
function specificationIndex(): string[][] {
  const section = doc.split(/^## Where each specification lives$/m)[1] ?? '';
  return section
    .split('\n')
    .filter(
      (line) => line.startsWith('| ') && !line.startsWith('| ---') && !line.startsWith('| Specification'),
    )
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
}

/** The paths a cell names in backticks, below packages/core/src unless they name a package. */
function pathsOf(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)]
    .map((match) => match[1]!)
    .filter((text) => /\.ts$|\/$/.test(text))
    .map((path) => (path.startsWith('packages/') ? path : `packages/core/src/${path}`));
}

describe('docs/architecture.md', () => {
  const rows = specificationIndex();

  it('indexes specifications to source and test files that exist', () => {
    expect(rows.length).toBeGreaterThan(20);
    const missing = rows.flatMap(([, source = '', tests = '']) =>
      [...pathsOf(source), ...pathsOf(tests)].filter((path) => !existsSync(join(root, path))),
    );
    expect(missing).toEqual([]);
  });

  it('names at least one source file and one test file for every specification', () => {
    const incomplete = rows
      .filter(
        ([, source = '', tests = '']) =>
          pathsOf(source).length === 0 || !pathsOf(tests).some((path) => /\.test\.ts$/.test(path)),
      )
      .map(([specification]) => specification);
    expect(incomplete).toEqual([]);
  });

  it('keeps history out: no rounds, issues or benchmark runs (they are in CHANGELOG.md)', () => {
    const history = doc
      .split('\n')
      .filter((line) => /\bissues? \d+|\bround[- ]1\b|\bruns? [A-Z]\b/i.test(line));
    expect(history).toEqual([]);
  });
});

/** `{ values, types }` of the API report of `packages/core/api/<file>.api.md`, from its count line. */
function reportedCounts(file: string): { values: number; types: number } {
  const report = readFileSync(join(root, 'packages/core/api', `${file}.api.md`), 'utf8');
  const match = /^(\d+) exports: (\d+) runtime values, (\d+) types only\.$/m.exec(report);
  if (!match) throw new Error(`packages/core/api/${file}.api.md has no count line`);
  return { values: Number(match[2]), types: Number(match[3]) };
}

/** The report file of an entry: `@gatehousejs/core` → index, `@gatehousejs/core/engine` → engine. */
function reportFileOf(entry: string): string {
  return entry === '@gatehousejs/core'
    ? 'index'
    : entry.slice('@gatehousejs/core/'.length).replaceAll('/', '-');
}

/**
 * The rows of a markdown table whose header starts with `| Entry`, as [entry, counts cell]: the
 * entry is the first cell's backticked name, the counts are in the last cell.
 */
function entryTable(text: string): [string, string][] {
  const lines = text.split('\n');
  const header = lines.findIndex((line) => line.startsWith('| Entry '));
  if (header < 0) return [];
  const rows: [string, string][] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    rows.push([/`([^`]+)`/.exec(cells[0] ?? '')?.[1] ?? '', cells.at(-1) ?? '']);
  }
  return rows;
}

const coreEntries = Object.keys(
  JSON.parse(readFileSync(join(root, 'packages/core/package.json'), 'utf8')).exports as Record<
    string,
    unknown
  >,
)
  .filter((key) => key !== './package.json')
  .map((key) => (key === '.' ? '@gatehousejs/core' : `@gatehousejs/core/${key.slice(2)}`));

describe.each([
  ['docs/architecture.md', /^(\d+) \+ (\d+) = (\d+)$/],
  ['packages/core/README.md', /^(\d+) \+ (\d+)$/],
])('the entry table of %s', (path, countsPattern) => {
  const rows = entryTable(readFileSync(join(root, path), 'utf8'));

  it('has one row per entry of @gatehousejs/core', () => {
    expect(rows.map(([entry]) => entry).sort()).toEqual([...coreEntries].sort());
  });

  it('gives each entry the counts of its API report (runtime values + types only)', () => {
    const mismatches = rows.flatMap(([entry, cell]) => {
      const match = countsPattern.exec(cell);
      if (!match) return [`${entry}: the counts cell "${cell}" does not read as ${countsPattern}`];
      const [values, types] = [Number(match[1]), Number(match[2])];
      const reported = reportedCounts(reportFileOf(entry));
      const problems: string[] = [];
      if (values !== reported.values || types !== reported.types)
        problems.push(
          `${entry}: ${path} says ${values} + ${types} = ${values + types}, ` +
            `its API report says ${reported.values} + ${reported.types} = ${reported.values + reported.types}`,
        );
      if (match[3] !== undefined && Number(match[3]) !== values + types)
        problems.push(`${entry}: ${path} says ${values} + ${types} = ${match[3]}`);
      return problems;
    });
    expect(mismatches).toEqual([]);
  });
});

describe('the application entry @gatehousejs/core', () => {
  // A 1.0-sized entry: what a host writes to create and configure an instance. A new feature's
  // hooks and results go to the entry of their audience (`/ui`, `/protect`, `/engine`, …), so the
  // names a host reads in its editor stay few.
  const APPLICATION_ENTRY_BUDGET = 100;

  it(`exports at most ${APPLICATION_ENTRY_BUDGET} names (its API report's count)`, () => {
    const { values, types } = reportedCounts('index');
    expect(values + types).toBeLessThanOrEqual(APPLICATION_ENTRY_BUDGET);
  });
});
