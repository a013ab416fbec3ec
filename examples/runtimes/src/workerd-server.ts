/**
 * Serves `src/worker.ts` on workerd, Cloudflare's Workers runtime, through Miniflare: bundles the
 * Worker with esbuild (as wrangler would: ESM, the `workerd` export conditions, everything inlined),
 * then starts a workerd process listening on `HOST:PORT` (default 127.0.0.1:3000). The environment
 * variables the other servers read become the Worker's text bindings.
 */
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { Miniflare } from 'miniflare';

/** The compatibility date the Worker is written against (no compatibility flags). */
const COMPATIBILITY_DATE = '2026-04-01';

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '127.0.0.1';

/**
 * The demo imports the Redis and PostgreSQL engines only when `GATEHOUSE_STORE` names them. They
 * speak TCP through Node's `net`, which a Worker lacks, so the bundle gets a module that says so.
 */
const serverOnlyEngines: Plugin = {
  name: 'server-only-engines',
  setup(build) {
    build.onResolve({ filter: /^@gatehousejs\/(redis|postgres)$/ }, ({ path }) => ({
      path,
      namespace: 'unavailable',
    }));
    build.onLoad({ filter: /.*/, namespace: 'unavailable' }, ({ path }) => ({
      contents: `throw new Error(${JSON.stringify(`${path} is not available in this Worker: use the memory engine`)});`,
    }));
  },
};

const bundle = await build({
  entryPoints: [fileURLToPath(new URL('./worker.ts', import.meta.url))],
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  conditions: ['workerd', 'worker', 'browser'],
  mainFields: ['module', 'main'],
  plugins: [serverOnlyEngines],
  logLevel: 'warning',
});

const bindings: Record<string, string> = { PORT: String(port) };
for (const name of ['GATEHOUSE_ALLOWED_ORIGINS', 'GATEHOUSE_SIGNING_KEY', 'GATEHOUSE_ACME_SIGNING_KEY']) {
  const value = process.env[name];
  if (value) bindings[name] = value;
}

const miniflare = new Miniflare({
  modules: true,
  script: bundle.outputFiles[0]!.text,
  compatibilityDate: COMPATIBILITY_DATE,
  bindings,
  host,
  port,
});
await miniflare.ready;
console.log(`listening on http://localhost:${port} (workerd through Miniflare)`);

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, async () => {
    await miniflare.dispose();
    process.exit(0);
  });
}
