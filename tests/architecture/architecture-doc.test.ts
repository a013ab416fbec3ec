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
