/**
 * The Koa example: the demo Gatehouse instance and its tickets API, after a body parser (Gatehouse
 * re-encodes what the parser consumed). `PORT` (default 3000) and `HOST` (default 127.0.0.1)
 * choose where it listens.
 */
import { allowedOriginsFromEnv, createDemo, demoApi, describeDemo } from '@gatehouse/demo';
import { gatehouse, operations } from '@gatehouse/koa';
import { bodyParser } from '@koa/bodyparser';
import Koa from 'koa';

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '127.0.0.1';
const demo = await createDemo({ port, allowedOrigins: allowedOriginsFromEnv() });

const app = new Koa();
app.use(bodyParser());
// Every instance route, including RFC 8414 metadata at /.well-known/oauth-authorization-server/demo.
app.use(gatehouse(demo.gatehouse));
// The demo's REST API (POST /demo/api/v1/tickets), protected by bearer tokens and the session cookie.
app.use(operations(demoApi(demo.gatehouse)));

const server = app.listen(port, host, () => {
  console.log(describeDemo(demo));
  console.log(`listening on http://localhost:${port}`);
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
