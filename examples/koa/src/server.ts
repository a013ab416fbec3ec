/**
 * The Koa example: the demo host's two instances (`demo`, `acme`) and their tickets API, after a body parser (Gatehouse
 * re-encodes what the parser consumed). `PORT` (default 3000) and `HOST` (default 127.0.0.1)
 * choose where it listens.
 */
import { allowedOriginsFromEnv, createDemoHost, demoApi, describeDemoHost } from '@gatehousejs/demo';
import { gatehouse, operations } from '@gatehousejs/koa';
import { bodyParser } from '@koa/bodyparser';
import Koa from 'koa';

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '127.0.0.1';
const demo = await createDemoHost({ port, allowedOrigins: allowedOriginsFromEnv(), portal: true });

const app = new Koa();
app.use(bodyParser());
// The portal (issue 29): a host app with its own sign-in at /portal/, and its OpenID Provider.
app.use(operations(demo.portal!.fetch));
// Every route of both instances (/demo/…, /acme/…), including RFC 8414 metadata at
// /.well-known/oauth-authorization-server/{demo,acme}: the host is mounted like one instance.
app.use(gatehouse(demo.host));
// The demo's REST API (POST /{demo,acme}/api/v1/tickets): each instance authenticates its own callers.
app.use(operations(demoApi(demo.host)));

const server = app.listen(port, host, () => {
  console.log(describeDemoHost(demo));
  console.log(`listening on http://localhost:${port}`);
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    server.close(() => demo.close().finally(() => process.exit(0)));
    server.closeAllConnections();
  });
}
