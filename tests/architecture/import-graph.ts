import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/**
 * The static import graph of TypeScript sources: every relative `import`, `import type`,
 * `export … from` and `import()` of a file, resolved to the file it names (`./x.js` → `./x.ts`,
 * `./dir` → `./dir/index.ts`). Type-only imports count: a cycle of types is still a cycle of
 * modules that cannot be understood, moved or tested apart. Bare specifiers (packages) are not
 * followed.
 */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

/** The `.ts` files under `dir`, tests excluded. */
export function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files.push(...sourceFiles(path));
    else if (/\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith('.d.ts')) files.push(path);
  }
  return files;
}

/** The relative specifiers a source imports, as written. */
export function relativeImports(source: string): string[] {
  const { importedFiles } = ts.preProcessFile(source, true, true);
  return importedFiles.map((file) => file.fileName).filter((name) => name.startsWith('.'));
}

function resolveSpecifier(from: string, specifier: string, exists: (path: string) => boolean): string {
  const base = resolve(dirname(from), specifier);
  const candidates = [
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.js$/, '.tsx'),
    base,
    `${base}.ts`,
    join(base, 'index.ts'),
  ];
  return candidates.find(exists) ?? base;
}

/** The graph of `files`, read with `read` (the file system by default). */
export function importGraph(
  files: readonly string[],
  read: (path: string) => string = (path) => readFileSync(path, 'utf8'),
  exists: (path: string) => boolean = existsSync,
): ImportGraph {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = relativeImports(read(file)).map((specifier) => resolveSpecifier(file, specifier, exists));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/**
 * Every import cycle of `graph`, one per strongly connected component of more than one file (or a
 * file importing itself), each given as a closed path `a → b → … → a` through that component.
 * Tarjan's algorithm, iterative so that a deep graph cannot overflow the stack.
 */
export function importCycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let next = 0;
  const edges = (node: string) => (graph.get(node) ?? []).filter((target) => graph.has(target));
  for (const root of graph.keys()) {
    if (index.has(root)) continue;
    const work: { node: string; edge: number }[] = [{ node: root, edge: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work.at(-1)!;
      const targets = edges(frame.node);
      if (frame.edge < targets.length) {
        const target = targets[frame.edge++]!;
        if (!index.has(target)) {
          index.set(target, next);
          low.set(target, next++);
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, edge: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        }
        continue;
      }
      work.pop();
      const parent = work.at(-1);
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        if (component.length > 1 || edges(frame.node).includes(frame.node)) components.push(component);
      }
    }
  }
  return components.map((component) => cyclePath(graph, new Set(component)));
}

/** A closed path through a strongly connected component (breadth-first from its first file back to it). */
function cyclePath(graph: ImportGraph, component: ReadonlySet<string>): string[] {
  const start = [...component].sort()[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const target of graph.get(node) ?? []) {
      if (!component.has(target)) continue;
      if (target === start) {
        const path = [start];
        for (let at: string | undefined = node; at !== undefined && at !== start; at = cameFrom.get(at))
          path.splice(1, 0, at);
        return [...path, start];
      }
      if (!cameFrom.has(target)) {
        cameFrom.set(target, node);
        queue.push(target);
      }
    }
  }
  return [start, start];
}

/** `graph`'s files relative to `root`, for messages. */
export function shown(paths: readonly string[], root: string): string {
  return paths.map((path) => relative(root, path)).join(' → ');
}
