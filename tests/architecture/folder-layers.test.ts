/**
 * Layering of the core: the top-level folders of packages/core/src form layers, each importing the
 * ones below it and never the other way round. Two folders that import each other are one tangle
 * that cannot be read, moved or tested apart. The entries (`<folder>/index.ts` of tsup.config.ts)
 * are facades that re-export their audience's API from wherever it lives, and the files at the
 * root of `src` are the shared core (context, errors, options) and the composition root: neither
 * counts. The pairs that remain are listed with why; a new one fails here.
 */
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importGraph, sourceFiles } from './import-graph';

const root = fileURLToPath(new URL('../../', import.meta.url));
const core = join(root, 'packages/core/src/');
const graph = importGraph(sourceFiles(core));
const inCore = (file: string) => relative(core, file).replaceAll('\\', '/');
const ENTRIES = new Set(
  ['adapter', 'node', 'engine', 'protect', 'ui', 'testing'].map((e) => `${e}/index.ts`),
);

/** Folder pairs that still import each other, and why. At most five. */
const ALLOWED: Readonly<Record<string, string>> = {
  'host <-> protect':
    '`defineOperations` (protect) serves a host as well as an instance; the host registers its internals for it.',
  'oauth2 <-> oidc':
    'OpenID Connect rides on the authorization flow (ID tokens at the code, the `prompt`/`max_age` rules), and its discovery extends RFC 8414 metadata.',
};

function folderPairs(): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const [file, targets] of graph) {
    const from = inCore(file);
    if (!from.includes('/') || ENTRIES.has(from)) continue;
    for (const target of targets) {
      const to = inCore(target);
      if (!to.includes('/') || to.startsWith('..')) continue;
      const a = from.split('/')[0]!;
      const b = to.split('/')[0]!;
      if (a === b) continue;
      const key = `${a} -> ${b}`;
      edges.set(key, [...(edges.get(key) ?? []), `${from} -> ${to}`]);
    }
  }
  const pairs = new Map<string, string[]>();
  for (const [key, files] of edges) {
    const [a, b] = key.split(' -> ') as [string, string];
    const back = edges.get(`${b} -> ${a}`);
    if (back && a < b) pairs.set(`${a} <-> ${b}`, [...files, ...back]);
  }
  return pairs;
}

describe('folder layers of the core', () => {
  it('have no two folders importing each other beyond the listed pairs (at most five)', () => {
    const pairs = folderPairs();
    const unlisted = [...pairs]
      .filter(([pair]) => !(pair in ALLOWED))
      .map(([pair, files]) => ({ pair, files }));
    expect(unlisted).toEqual([]);
    expect(Object.keys(ALLOWED).length).toBeLessThanOrEqual(5);
  });

  it('lists no pair that no longer exists', () => {
    const pairs = folderPairs();
    expect(Object.keys(ALLOWED).filter((pair) => !pairs.has(pair))).toEqual([]);
  });
});
