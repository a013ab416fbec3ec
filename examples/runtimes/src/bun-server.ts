/**
 * The demo host (instances `demo` and `acme`) and its tickets API on `Bun.serve`, started by `bun src/bun-server.ts` (Bun runs
 * the TypeScript and resolves `@gatehousejs/core` through its exports map, as a Bun user's app would).
 * `PORT` (default 3000) and `HOST` (default 127.0.0.1) choose where it listens.
 */
import { allowedOriginsFromEnv, createDemoHost, describeDemoHost } from '@gatehousejs/demo';
import { demoHandler } from './demo-handler.js';

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '127.0.0.1';
const demo = await createDemoHost({ port, allowedOrigins: allowedOriginsFromEnv(), portal: true });
const handle = demoHandler(demo);

const server = Bun.serve({
  port,
  hostname: host,
  fetch: (request, server) => handle(request, () => server.requestIP(request)?.address),
});
console.log(describeDemoHost(demo));
console.log(`listening on http://localhost:${server.port} (Bun ${Bun.version})`);

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, async () => {
    await server.stop(true);
    await demo.close();
    process.exit(0);
  });
}
