/**
 * The demo instance and its tickets API on a plain `node:http` server, through the Node bridge of
 * `@gatehousejs/core/node` and nothing else: the framework-free reference the conformance suite (test/conformance.test.ts)
 * compares the adapters against. `PORT` (default 3000) and `HOST` (default 127.0.0.1).
 */
import { createServer } from 'node:http';
import { sendWebResponse, toWebRequest } from '@gatehousejs/core/node';
import { allowedOriginsFromEnv, createDemo, demoApi, describeDemo } from '@gatehousejs/demo';

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '127.0.0.1';
const demo = await createDemo({ port, allowedOrigins: allowedOriginsFromEnv() });
const api = demoApi(demo.gatehouse);

const server = createServer(async (req, res) => {
  try {
    const request = toWebRequest(req, { response: res });
    await sendWebResponse(res, (await api(request)) ?? (await demo.gatehouse.fetch(request)));
  } catch (error) {
    console.error(error);
    if (!res.headersSent) res.writeHead(500).end();
    else res.destroy();
  }
});

server.listen(port, host, () => {
  console.log(describeDemo(demo));
  console.log(`listening on http://localhost:${port}`);
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
