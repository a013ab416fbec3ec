/**
 * The demo host's two instances (`demo`, `acme`) and their tickets API on a plain `node:http`
 * server, through the Node bridge of `@gatehousejs/core/node` and nothing else: the framework-free
 * reference the conformance suite (test/conformance.test.ts) compares the adapters against. `PORT`
 * (default 3000) and `HOST` (default 127.0.0.1).
 */
import { createServer } from 'node:http';
import { sendWebResponse, toWebRequest } from '@gatehousejs/core/node';
import { allowedOriginsFromEnv, createDemoHost, demoApi, describeDemoHost } from '@gatehousejs/demo';

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '127.0.0.1';
const demo = await createDemoHost({ port, allowedOrigins: allowedOriginsFromEnv(), portal: true });
// POST /{demo,acme}/api/v1/tickets: each instance authenticates its own callers.
const api = demoApi(demo.host);

const server = createServer(async (req, res) => {
  try {
    const request = toWebRequest(req, { response: res });
    // Every route of both instances (/demo/…, /acme/…) and their RFC 8414 §3 metadata at
    // /.well-known/oauth-authorization-server/{demo,acme}; anything else gets the host's 404.
    // The portal (issue 29) first: its pages and its own OpenID Provider under /portal/.
    const answer =
      (await demo.portal!.fetch(request)) ?? (await api(request)) ?? (await demo.host.fetch(request));
    await sendWebResponse(res, answer);
  } catch (error) {
    console.error(error);
    if (!res.headersSent) res.writeHead(500).end();
    else res.destroy();
  }
});

server.listen(port, host, () => {
  console.log(describeDemoHost(demo));
  // The version, as the Bun and Deno servers print theirs: the runtime matrix checks who served it.
  console.log(`listening on http://localhost:${port} (Node.js ${process.version})`);
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    server.close(() => demo.close().finally(() => process.exit(0)));
    server.closeAllConnections();
  });
}
