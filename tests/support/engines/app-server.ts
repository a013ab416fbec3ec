/**
 * One Gatehouse application process for the tests that run several of them on one engine (the
 * fault campaign, several processes behind one port, the rolling upgrade): the instance `/app` on
 * a plain `node:http` server, its storage the engine `GATEHOUSE_STORE` names (examples/demo's
 * `engineFromEnv`: memory, redis with `REDIS_URL`, postgres with `DATABASE_URL` and optionally
 * `DATABASE_DIRECT_URL`, in the namespace `GATEHOUSE_STORE_NAMESPACE`). Started by
 * `app-processes.ts`, which reads the port from the first line it prints (`{"port": N}`).
 *
 * Environment: `PORT` (0: any), `PUBLIC_ORIGIN` (the issuer's origin, the same for every process
 * behind one balancer; default the process's own), `APP_KEYS` (a JSON array of private JWKs every
 * process shares) or `APP_KEK` (stored, rotated keys: `keyRotation` with `APP_ROTATE_EVERY`
 * seconds), `APP_STORAGE_TIMEOUT_MS` (default 1000), `APP_MAX_LAG_MS` (pushed revocations' lag,
 * default 1000; `off`: per-request checks).
 *
 * Seeded: the confidential client `app-client` / `app-secret` (code and refresh token grants,
 * redirect `{origin}/callback`), the user `load` / `load-password` (a cheap PBKDF2 hash: the
 * campaign measures storage, not hashing), dynamic registration open. Besides the instance's
 * routes: `GET /app/api/me` answers 200 `{ sub }` for a bearer token or session that passes the
 * check, else the check's answer (401, 503).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createGatehouse,
  type GatehouseOptions,
  hashClientSecret,
  memoryClientStore,
  memoryUserStore,
  pbkdf2Hasher,
} from '@gatehousejs/core';
import { sendWebResponse, toWebRequest } from '@gatehousejs/core/node';
import { engineFromEnv } from '@gatehousejs/demo';

const env = process.env;
const port = Number(env.PORT ?? 0);
const storageTimeoutMs = Number(env.APP_STORAGE_TIMEOUT_MS ?? 1000);
const maxLagMs = env.APP_MAX_LAG_MS === 'off' ? false : Number(env.APP_MAX_LAG_MS ?? 1000);
const hasher = pbkdf2Hasher({ iterations: 1000 });
const engine = await engineFromEnv(env);

const server = createServer();
await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
const origin = env.PUBLIC_ORIGIN ?? `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const rotateEvery = Number(env.APP_ROTATE_EVERY ?? 0);

/** Short lifetimes when keys rotate every few seconds: a retired key stays only as long as its tokens. */
const lifetimes: Partial<GatehouseOptions> =
  rotateEvery > 0 ? { accessTokenTtl: 4 * rotateEvery, authApi: { tokenTtl: 4 * rotateEvery } } : {};

const gatehouse = createGatehouse({
  issuer: `${origin}/app`,
  keys: env.APP_KEYS ? JSON.parse(env.APP_KEYS) : [],
  ...(env.APP_KEK
    ? {
        keyRotation: {
          keyEncryptionKey: env.APP_KEK,
          rotateEvery,
          leadTime: rotateEvery,
          refreshInterval: 1,
        },
      }
    : {}),
  ...lifetimes,
  clients: memoryClientStore([
    {
      id: 'app-client',
      type: 'confidential',
      secretHash: await hashClientSecret('app-secret'),
      redirectUris: [`${origin}/callback`],
      grantTypes: ['authorization_code', 'refresh_token'],
      firstParty: true,
    },
  ]),
  users: memoryUserStore(
    [{ id: 'user-load', username: 'load', passwordHash: await hasher.hash('load-password') }],
    { hasher },
  ),
  scopes: ['openid', 'offline_access'],
  storage: engine.engine,
  storageTimeoutMs,
  pushedRevocations: maxLagMs === false ? false : { maxLagMs },
  // One address (loopback) signs in all the time: the limits of a shared network, not of one person.
  rateLimit: { maxFailuresPerAddress: 100_000, maxFailuresPerUsername: 100_000 },
  interactions: { maxPerNetwork: 100_000 },
  dynamicRegistration: { maxPerAddress: 10_000 },
  logger: { warn() {}, error() {} },
});
await gatehouse.ready();

server.on('request', (req, res) => {
  const request = toWebRequest(req, { response: res });
  const answer =
    req.url === '/app/api/me' && req.method === 'GET'
      ? gatehouse
          .authenticate(request, { schemes: ['bearer', 'session'] })
          .then((result) => (result.ok ? Response.json({ sub: result.caller.sub }) : result.response))
      : gatehouse.fetch(request);
  answer
    .then((response) => sendWebResponse(res, response))
    .catch((error) => {
      // Never expected: the campaign counts every 5xx but 503 as a failure.
      console.error(error);
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
});
process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);

process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close();
  void engine.close().finally(() => process.exit(0));
});
