/**
 * The Fastify example: the demo host's two instances (`demo`, `acme`) and their tickets API, the
 * plugin registered once per instance path, after a JSON route of the app's own (Fastify's parsers
 * stay for it; Gatehouse reads its own bodies). `PORT` (default 3000) and `HOST` (default
 * 127.0.0.1) choose where it listens.
 */
import {
  allowedOriginsFromEnv,
  createDemoHost,
  DEMO_INSTANCES,
  demoApi,
  describeDemoHost,
} from '@gatehousejs/demo';
import { gatehouse, requireAuth } from '@gatehousejs/fastify';
import Fastify from 'fastify';

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '127.0.0.1';
const demo = await createDemoHost({ port, allowedOrigins: allowedOriginsFromEnv(), portal: true });
// The demo's REST API (POST /{demo,acme}/api/v1/tickets): each instance authenticates its own callers.
const api = demoApi(demo.host);

const app = Fastify();
// Fastify routes by path, so the host (which has no single basePath) is registered once per
// instance: every route under /demo and /acme, the RFC 8414 §3 metadata at
// /.well-known/oauth-authorization-server/{demo,acme}, and the tickets API, protected by bearer
// tokens and the session cookie of the instance the path names.
for (const name of DEMO_INSTANCES) {
  await app.register(gatehouse, { instance: demo.host, path: `/${name}`, operations: api });
}
// The portal (issue 29): a host app with its own sign-in at /portal/, and its OpenID Provider,
// registered by path like an instance.
await app.register(gatehouse, { instance: demo.portal!.servable, path: '/portal' });
// A route of the app's own behind requireAuth (credentials of `demo`): the caller is on request.auth.
const demoInstance = await demo.host.instance('demo');
if (!demoInstance) throw new Error('the demo host has no "demo" instance');
app.get(
  '/me',
  { preHandler: requireAuth(demoInstance, { schemes: ['bearer', 'session'] }) },
  async (request) => ({
    sub: request.auth?.sub,
  }),
);

await app.listen({ port, host });
console.log(describeDemoHost(demo));
console.log(`listening on http://localhost:${port}`);

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    app
      .close()
      .then(() => demo.close())
      .finally(() => process.exit(0));
  });
}
