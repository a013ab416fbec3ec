/**
 * The Fastify example: the demo Gatehouse instance and its tickets API, registered as one plugin,
 * after a JSON route of the app's own (Fastify's parsers stay for it; Gatehouse reads its own
 * bodies). `PORT` (default 3000) and `HOST` (default 127.0.0.1) choose where it listens.
 */
import { allowedOriginsFromEnv, createDemo, demoApi, describeDemo } from '@gatehousejs/demo';
import { gatehouse, requireAuth } from '@gatehousejs/fastify';
import Fastify from 'fastify';

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '127.0.0.1';
const demo = await createDemo({ port, allowedOrigins: allowedOriginsFromEnv() });

const app = Fastify();
// Every instance route under /demo, the RFC 8414 metadata at /.well-known/oauth-authorization-server/demo,
// and the demo's REST API (POST /demo/api/v1/tickets), protected by bearer tokens and the session cookie.
await app.register(gatehouse, { instance: demo.gatehouse, operations: demoApi(demo.gatehouse) });
// A route of the app's own behind requireAuth: the caller is on request.auth.
app.get(
  '/me',
  { preHandler: requireAuth(demo.gatehouse, { schemes: ['bearer', 'session'] }) },
  async (request) => ({
    sub: request.auth?.sub,
  }),
);

await app.listen({ port, host });
console.log(describeDemo(demo));
console.log(`listening on http://localhost:${port}`);

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    app.close().then(() => process.exit(0));
  });
}
