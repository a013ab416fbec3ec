/**
 * Bundles the demo's browser app (src/browser/app.ts, using @gatehousejs/client) into
 * public/client.js (and the cross-tab test page into public/cross-tab.js). Run by `pnpm start` before the server; the output is not committed.
 * `@gatehousejs/client` is taken from its source, so no package build is needed first.
 */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const at = (path) => fileURLToPath(new URL(path, import.meta.url));

/** Builds the bundle; resolves with esbuild's result. */
export function buildBrowserApp() {
  return build({
    // client.js: the demo app; cross-tab.js and dpop.js: pages of browser tests (not linked).
    entryPoints: {
      client: at('../src/browser/app.ts'),
      'cross-tab': at('../src/browser/cross-tab.ts'),
      dpop: at('../src/browser/dpop.ts'),
    },
    outdir: at('../public'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    sourcemap: true,
    minify: false,
    legalComments: 'none',
    alias: { '@gatehousejs/client': at('../../../packages/client/src/index.ts') },
    logLevel: 'warning',
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildBrowserApp();
  console.log('built public/client.js, public/cross-tab.js and public/dpop.js');
}
