/**
 * The Hono example, on Node through `@hono/node-server`: the demo host's two instances (`demo`,
 * `acme`) and their tickets API. `PORT` (default 3000) and `HOST` (default 127.0.0.1) choose where it listens.
 */
import { allowedOriginsFromEnv, createDemoHost, demoApi, describeDemoHost } from '@gatehousejs/demo';
import { gatehouse, operations } from '@gatehousejs/hono';
import { serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { type Context, Hono } from 'hono';

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '127.0.0.1';
const demo = await createDemoHost({ port, allowedOrigins: allowedOriginsFromEnv(), portal: true });
// The socket address, for the password rate limiter (no proxy in front of this example).
const clientAddress = (c: Context) => getConnInfo(c).remote.address;

const app = new Hono();
// Every route of both instances (/demo/…, /acme/…), including RFC 8414 metadata at
// /.well-known/oauth-authorization-server/{demo,acme}: the host is mounted like one instance.
// The portal (issue 29): a host app with its own sign-in at /portal/, and its OpenID Provider.
app.use(operations(demo.portal!.fetch, { clientAddress }));
app.use(gatehouse(demo.host, { clientAddress }));
// The demo's REST API (POST /{demo,acme}/api/v1/tickets): each instance authenticates its own callers.
app.use(operations(demoApi(demo.host), { clientAddress }));

const server = serve({ fetch: app.fetch, port, hostname: host }, () => {
  console.log(describeDemoHost(demo));
  console.log(`listening on http://localhost:${port}`);
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    server.close(() => demo.close().finally(() => process.exit(0)));
    if ('closeAllConnections' in server) server.closeAllConnections();
  });
}
