/**
 * The Hono example, on Node through `@hono/node-server`: the demo Gatehouse instance and its
 * tickets API. `PORT` (default 3000) and `HOST` (default 127.0.0.1) choose where it listens.
 */
import { allowedOriginsFromEnv, createDemo, demoApi, describeDemo } from '@gatehouse/demo';
import { gatehouse, operations } from '@gatehouse/hono';
import { serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { type Context, Hono } from 'hono';

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '127.0.0.1';
const demo = await createDemo({ port, allowedOrigins: allowedOriginsFromEnv() });
// The socket address, for the password rate limiter (no proxy in front of this example).
const clientAddress = (c: Context) => getConnInfo(c).remote.address;

const app = new Hono();
// Every instance route, including RFC 8414 metadata at /.well-known/oauth-authorization-server/demo.
app.use(gatehouse(demo.gatehouse, { clientAddress }));
// The demo's REST API (POST /demo/api/v1/tickets), protected by bearer tokens and the session cookie.
app.use(operations(demoApi(demo.gatehouse), { clientAddress }));

const server = serve({ fetch: app.fetch, port, hostname: host }, () => {
  console.log(describeDemo(demo));
  console.log(`listening on http://localhost:${port}`);
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    server.close(() => process.exit(0));
    if ('closeAllConnections' in server) server.closeAllConnections();
  });
}
