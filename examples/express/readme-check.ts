// server.ts — run with `npx tsx server.ts`, then open http://localhost:4101/demo/.well-known/oauth-authorization-server
import {
  createGatehouse, defineOperations, generateKeys, hashClientSecret, memoryClientStore, memoryUserStore, pbkdf2Hasher,
} from '@gatehouse/core';
import { gatehouse, operations, requireAuth } from '@gatehouse/express';
import express from 'express';

const hasher = pbkdf2Hasher();
const instance = createGatehouse({
  issuer: 'http://localhost:4101/demo',
  keys: [await generateKeys()], // ephemeral: load persistent keys in production
  clients: memoryClientStore([
    {
      id: 'my-app', type: 'confidential', secretHash: await hashClientSecret('my-secret'),
      redirectUris: ['http://localhost:4101/callback'], firstParty: true,
    },
  ]),
  users: memoryUserStore([{ id: 'u1', username: 'alice', passwordHash: await hasher.hash('alice-password') }], { hasher }),
});

const app = express();
app.use('/demo', gatehouse(instance)); // every route of the issuer http://localhost:4101/demo
app.use('/.well-known', gatehouse(instance)); // RFC 8414 §3: /.well-known/oauth-authorization-server/demo

// Your own routes: the caller is on req.auth.
app.get('/me', requireAuth(instance, { schemes: ['bearer', 'session'] }), (req, res) => {
  res.json({ sub: req.auth?.sub, scheme: req.auth?.scheme });
});

// Or a table of operations under the issuer (CORS and 401/403/405 handled by the core).
const api = defineOperations(instance, {
  'GET /api/v1/hello': { schemes: ['bearer'], handler: (_request, caller) => Response.json({ hello: caller.sub }) },
});
app.use('/demo', operations(api));

app.listen(4101);
