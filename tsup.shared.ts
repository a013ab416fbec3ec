import { defineConfig, type Options } from 'tsup';

/**
 * The one build shape of every published package: ESM + CJS + `.d.ts`/`.d.cts`, unbundled
 * dependencies. `neutral` packages (core's main entry, the client, Hono and Next adapters) must run on
 * any runtime; `node` only resolves Node built-ins for the Node-only packages and entries.
 */
export function packageBuild(entry: Record<string, string>, platform: Options['platform'] = 'node') {
  return defineConfig({
    entry,
    format: ['esm', 'cjs'],
    dts: true,
    clean: true,
    // Shared code in chunks for CJS too (ESM splits by default): every entry of a package then
    // shares one copy of each module, so module state (an instance's internals, kept in a map
    // keyed by the instance) is the same whichever entry an adapter or host loads.
    splitting: true,
    // No source maps: the output is not minified (names, structure and comments' places stay), so
    // a stack trace is readable as it is, and maps embedding the TypeScript sources made up more than
    // half of the core tarball (`tests/packaging/tarballs.test.ts` holds every tarball to that).
    sourcemap: false,
    target: 'es2022',
    platform,
    // `import.meta.url` is empty in a CJS build unless shimmed (it crashed `require('…/postgres')`,
    // whose migrations are located relative to the module). Node entries only: the shim uses `url`.
    shims: platform === 'node',
  });
}
