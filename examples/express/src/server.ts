/**
 * The Express example: the demo Gatehouse instance mounted at `/demo`, plus the demo client's
 * callback page. `PORT` (default 3000) and `HOST` (default 127.0.0.1) choose where it listens.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { allowedOriginsFromEnv, createDemo, demoApi, describeDemo } from '@gatehouse/demo';
import { gatehouse, operations } from '@gatehouse/express';
import express from 'express';

const publicDir = fileURLToPath(new URL('../public', import.meta.url));

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '127.0.0.1';
const demo = await createDemo({ port, allowedOrigins: allowedOriginsFromEnv() });

const app = express();
app.disable('x-powered-by');
app.use('/demo', gatehouse(demo.gatehouse));
// The demo's REST API (POST /demo/api/v1/tickets), protected by bearer tokens and the session cookie.
app.use('/demo', operations(demoApi(demo.gatehouse)));
// RFC 8414 §3: the metadata of an issuer with a path also lives at /.well-known/oauth-authorization-server/demo.
app.use('/.well-known', gatehouse(demo.gatehouse));
// The browser demo app (`/`) and its callback page (`/callback`): public/, bundled by `pnpm start`.
app.use(express.static(publicDir, { index: 'index.html' }));
app.get('/callback', (_req, res) => {
  res.set('Cache-Control', 'no-store').sendFile(join(publicDir, 'callback.html'));
});

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
