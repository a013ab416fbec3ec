import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importCycles, importGraph, relativeImports, shown, sourceFiles } from './import-graph';

const root = fileURLToPath(new URL('../..', import.meta.url));
const packageSources = readdirSync(join(root, 'packages'))
  .map((name) => join(root, 'packages', name, 'src'))
  .filter((dir) => existsSync(dir));
const files = packageSources.flatMap((dir) => sourceFiles(dir));
const graph = importGraph(files);

/** A graph of in-memory files, for checking the checker. */
function memoryGraph(sources: Record<string, string>) {
  const paths = Object.keys(sources).map((name) => join('/virtual', name));
  const read = (path: string) => sources[relative('/virtual', path)]!;
  return importGraph(paths, read, (path) => paths.includes(path));
}

describe('the import graph walker', () => {
  it('reads value imports, type imports, re-exports and dynamic imports', () => {
    const source = [
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      "export { c } from './c/index.js';",
      "export type { D } from './d.js';",
      "const e = await import('./e.js');",
      "import { jose } from 'jose';",
    ].join('\n');
    expect(relativeImports(source)).toEqual(['./a.js', '../b.js', './c/index.js', './d.js', './e.js']);
  });

  it('finds a cycle made of type-only imports, and names its path', () => {
    const cycles = importCycles(
      memoryGraph({
        'context.ts': "import type { Cache } from './cache.js';",
        'cache.ts': "import type { Claims } from './token.js';",
        'token.ts': "import type { Context } from './context.js';\nimport { leaf } from './leaf.js';",
        'leaf.ts': 'export const leaf = 1;',
      }),
    );
    expect(cycles.map((cycle) => shown(cycle, '/virtual'))).toEqual([
      'cache.ts → token.ts → context.ts → cache.ts',
    ]);
  });

  it('finds no cycle in a graph without one, and a file that imports itself', () => {
    expect(importCycles(memoryGraph({ 'a.ts': "import './b.js';", 'b.ts': '' }))).toEqual([]);
    expect(importCycles(memoryGraph({ 'a.ts': "export * from './a.js';" }))).toHaveLength(1);
  });
});

describe('packages/*/src', () => {
  it('are read whole (the walk reaches every package and resolves its imports)', () => {
    expect(packageSources.length).toBeGreaterThanOrEqual(9);
    expect(files.length).toBeGreaterThan(200);
    const unresolved = [...graph].flatMap(([file, targets]) =>
      targets.filter((target) => !graph.has(target)).map((target) => shown([file, target], root)),
    );
    expect(unresolved).toEqual([]);
  });

  it('have no import cycle, type-only imports included', () => {
    expect(importCycles(graph).map((cycle) => shown(cycle, root))).toEqual([]);
  });

  it('keep the HTTP layer below the features: packages/core/src/http imports no feature module', () => {
    const http = join(root, 'packages/core/src/http/');
    const features = ['passwords', 'oauth2', 'oidc', 'session', 'auth-api', 'protect', 'revocation'].map(
      (area) => join(root, 'packages/core/src', area, '/'),
    );
    const upward = [...graph]
      .filter(([file]) => file.startsWith(http))
      .flatMap(([file, targets]) =>
        targets
          .filter((target) => features.some((area) => target.startsWith(area)))
          .map((t) => shown([file, t], root)),
      );
    expect(upward).toEqual([]);
  });
});
