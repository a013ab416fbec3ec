// server.ts — run with `npx tsx server.ts`, then open http://localhost:4103/demo/.well-known/oauth-authorization-server
import {
  createGatehouse, defineOperations, generateKeys, hashClientSecret, memoryClientStore, memoryUserStore, pbkdf2Hasher,
} from '@gatehouse/core';
import { type AuthVariables, gatehouse, operations, requireAuth } from '@gatehouse/hono';
import { serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { Hono } from 'hono';

const hasher = pbkdf2Hasher();
const instance = createGatehouse({
  issuer: 'http://localhost:4103/demo',
  keys: [await generateKeys()], // ephemeral: load persistent keys in production
  clients: memoryClientStore([
    {
      id: 'my-app', type: 'confidential', secretHash: await hashClientSecret('my-secret'),
      redirectUris: ['http://localhost:4103/callback'], firstParty: true,
    },
  ]),
  users: memoryUserStore([{ id: 'u1', username: 'alice', passwordHash: await hasher.hash('alice-password') }], { hasher }),
});

const app = new Hono<{ Variables: AuthVariables }>();
// The instance's routes; the client address feeds the password rate limiter.
app.use(gatehouse(instance, { clientAddress: (c) => getConnInfo(c).remote.address }));
app.use(
  operations(
    defineOperations(instance, {
      'GET /api/v1/hello': { schemes: ['bearer'], handler: (_request, caller) => Response.json({ hello: caller.sub }) },
    }),
  ),
);
app.get('/me', requireAuth(instance, { schemes: ['bearer', 'session'] }), (c) => c.json({ sub: c.get('auth').sub }));

serve({ fetch: app.fetch, port: 4103 });
