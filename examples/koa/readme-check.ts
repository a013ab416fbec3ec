// server.ts — run with `npx tsx server.ts`, then open http://localhost:4102/demo/.well-known/oauth-authorization-server
import {
  createGatehouse, defineOperations, generateKeys, hashClientSecret, memoryClientStore, memoryUserStore, pbkdf2Hasher,
} from '@gatehouse/core';
import { type AuthState, gatehouse, operations, requireAuth } from '@gatehouse/koa';
import Koa from 'koa';

const hasher = pbkdf2Hasher();
const instance = createGatehouse({
  issuer: 'http://localhost:4102/demo',
  keys: [await generateKeys()], // ephemeral: load persistent keys in production
  clients: memoryClientStore([
    {
      id: 'my-app', type: 'confidential', secretHash: await hashClientSecret('my-secret'),
      redirectUris: ['http://localhost:4102/callback'], firstParty: true,
    },
  ]),
  users: memoryUserStore([{ id: 'u1', username: 'alice', passwordHash: await hasher.hash('alice-password') }], { hasher }),
});

const app = new Koa<AuthState>();
app.use(gatehouse(instance)); // the instance's routes (including RFC 8414 metadata); others go on
app.use(
  operations(
    defineOperations(instance, {
      'GET /api/v1/hello': { schemes: ['bearer'], handler: (_request, caller) => Response.json({ hello: caller.sub }) },
    }),
  ),
);
// Your own middleware behind requireAuth: the caller is on ctx.state.auth.
app.use(requireAuth(instance, { schemes: ['bearer', 'session'] }));
app.use((ctx) => {
  ctx.body = { sub: ctx.state.auth.sub };
});

app.listen(4102);
