import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** Follows relative imports from an entry file and returns every bare module specifier reached. */
function importedModules(entry: string): Map<string, string> {
  const seen = new Set<string>();
  const external = new Map<string, string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(
      /(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g,
    )) {
      const specifier = (match[1] ?? match[2])!;
      if (specifier.startsWith('.')) queue.push(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else external.set(specifier, file);
    }
  }
  return external;
}

describe('the runtime-neutral entries', () => {
  it.each([
    ['the main entry', 'index.ts'],
    ['the adapter entry', 'adapter/index.ts'],
    ['the engine entry', 'engine/index.ts'],
    ['the protect entry', 'protect/index.ts'],
    ['the ui entry', 'ui/index.ts'],
  ])('%s imports no Node.js built-in, directly or transitively', (_, path) => {
    const entry = resolve(dirname(fileURLToPath(import.meta.url)), path);
    const modules = importedModules(entry);
    const builtins = [...modules].filter(
      ([name]) =>
        name.startsWith('node:') || ['crypto', 'fs', 'http', 'buffer', 'stream', 'path'].includes(name),
    );
    expect(builtins).toEqual([]);
  });

  it('reaches jose from the main entry (the import scan works)', () => {
    const modules = importedModules(resolve(dirname(fileURLToPath(import.meta.url)), 'index.ts'));
    expect([...modules.keys()].sort()).toEqual(expect.arrayContaining(['jose']));
  });
});
