/**
 * Many instances, created on the fly by `createGatehouseHost` on one shared engine, behind a plain
 * `node:http` server: the process test/multi-process.test.ts starts twice against the same Redis or
 * PostgreSQL, to show that what one process created and wrote, another serves, and nothing more.
 *
 * Environment: `PORT`, `HOST`, `PUBLIC_ORIGIN` (default `http://localhost:PORT`); `GATEHOUSE_STORE` (`redis` or `postgres`), `REDIS_URL` /
 * `DATABASE_URL` and `GATEHOUSE_STORE_NAMESPACE`, as for the demo; `INSTANCE_KEYS`, the path of a
 * JSON file mapping each instance name to its private JWK. Every instance has the demo's
 * confidential client and user (same id, secret, username and password everywhere) but its own key
 * and user id (`user-{name}`), and pushed revocations on.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import {
  createGatehouseHost,
  type HostedInstanceOptions,
  hashClientSecret,
  memoryClientStore,
  memoryUserStore,
  type PrivateJwk,
  pbkdf2Hasher,
} from '@gatehousejs/core';
import { sendWebResponse, toWebRequest } from '@gatehousejs/core/node';
import { DEMO, engineFromEnv } from '@gatehousejs/demo';

const port = Number(process.env.PORT ?? 3000);
const address = process.env.HOST ?? '127.0.0.1';
// The public origin: processes behind one load balancer share it, whatever port each listens on.
const origin = process.env.PUBLIC_ORIGIN ?? `http://localhost:${port}`;
const keysFile = process.env.INSTANCE_KEYS;
if (!keysFile) throw new Error('INSTANCE_KEYS must name a JSON file of { instance name: private JWK }');
const keys = new Map(
  Object.entries(JSON.parse(readFileSync(keysFile, 'utf8')) as Record<string, PrivateJwk>),
);

// A cheap hash: the test signs in to hundreds of instances; the work factor is not what it shows.
const hasher = pbkdf2Hasher({ iterations: 1_000 });
const passwordHash = await hasher.hash(DEMO.user.password);
const clientSecretHash = await hashClientSecret(DEMO.client.secret);

/** What a host would read from its table of instances: here the keys file, and the demo's seeds. */
function instanceOptions(name: string): HostedInstanceOptions | null {
  const key = keys.get(name);
  if (!key) return null;
  return {
    keys: [key],
    clients: memoryClientStore([
      {
        id: DEMO.client.id,
        name: 'Demo Client',
        type: 'confidential',
        secretHash: clientSecretHash,
        redirectUris: [`${origin}/callback`],
        firstParty: true,
      },
    ]),
    users: memoryUserStore(
      [{ id: `user-${name}`, username: DEMO.user.username, passwordHash, claims: DEMO.user.claims }],
      { hasher },
    ),
    scopes: [...DEMO.scopes],
    pushedRevocations: true,
  };
}

const engine = await engineFromEnv();
const host = createGatehouseHost({ origin, storage: engine.engine, resolve: instanceOptions });

const server = createServer(async (req, res) => {
  // Readiness without creating an instance.
  if (req.url === '/healthz') return void res.writeHead(200).end('ok');
  try {
    await sendWebResponse(res, await host.fetch(toWebRequest(req, { response: res })));
  } catch (error) {
    console.error(error);
    if (!res.headersSent) res.writeHead(500).end();
    else res.destroy();
  }
});

server.listen(port, address, () => {
  console.log(`${keys.size} instances on ${engine.kind}, listening on ${origin}`);
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    server.close(() => void engine.close().finally(() => process.exit(0)));
    server.closeAllConnections();
  });
}
