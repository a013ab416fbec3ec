/**
 * The demo host (instances `demo` and `acme`) and its tickets API on `Deno.serve`, started by `deno run` (Deno runs the
 * TypeScript and resolves `@gatehousejs/core` from node_modules through its exports map, as a Deno
 * app with a package.json would). `PORT` (default 3000) and `HOST` (default 127.0.0.1).
 */
import { allowedOriginsFromEnv, createDemoHost, describeDemoHost } from '@gatehousejs/demo';
import { demoHandler } from './demo-handler.js';

const port = Number(Deno.env.get('PORT') ?? 3000);
const host = Deno.env.get('HOST') ?? '127.0.0.1';
const demo = await createDemoHost({
  port,
  allowedOrigins: allowedOriginsFromEnv(Deno.env.toObject()),
  portal: true,
});
const handle = demoHandler(demo);

const server = Deno.serve(
  {
    port,
    hostname: host,
    onListen: () => {
      console.log(describeDemoHost(demo));
      console.log(`listening on http://localhost:${port} (Deno ${Deno.version.deno})`);
    },
  },
  (request, info) => handle(request, () => info.remoteAddr.hostname),
);

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  Deno.addSignalListener(signal, async () => {
    await server.shutdown();
    await demo.close();
    Deno.exit(0);
  });
}
