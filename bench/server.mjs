/**
 * The benchmark's server: the demo instance (examples/demo) on the Express adapter, the Hono
 * adapter with @hono/node-server, the Fastify adapter, or the Koa adapter (not in `pnpm bench`'s
 * default set: BENCH_ADAPTERS=koa), plus these bench-only routes on the same app:
 *   GET  /bench/ping   W0, unprotected: the framework's own ceiling (a bare route of the framework);
 *   GET  /bench/api    W1, behind the adapter's `requireAuth({ schemes: ['bearer'], scope: 'api:read' })`,
 *                      answering `{ ok, sub, scope }`;
 *   GET  /bench/floor  F1 (optional), behind a middleware that only reads the Authorization header:
 *                      what any middleware costs on this framework, the floor under W1;
 *   POST /bench/mint   mints credentials for the load generator through public APIs only: refresh
 *                      tokens and PKCE codes go through the instance's GrantStore (`saveRefreshToken`,
 *                      `saveCode`, with `hashSecret`), access tokens through the real token endpoint.
 * Run by bench/run.mjs as `node --import tsx bench/server.mjs --adapter express|koa|hono|fastify` (tsx loads the
 * TypeScript demo; Gatehouse itself runs from the built dist). Prints `LISTENING <port>` when ready.
 * With `--bare`, the framework alone (a fresh app with `GET /bench/ping` answering `{ ok: true }`):
 * the bare target each Gatehouse target is paired with, in a process of its own; its
 * `POST /bench/token-floor` (F2) is the floor under the token endpoint (bench/token-floor.mjs).
 */
import cluster from 'node:cluster';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    adapter: { type: 'string', default: 'express' },
    engine: { type: 'string', default: 'memory' },
    bare: { type: 'boolean', default: false },
    processes: { type: 'string', default: '1' },
  },
});
const root = new URL('../', import.meta.url);
const requireFrom = (pkg) => createRequire(new URL(`packages/${pkg}/package.json`, root));

// --bare: the framework alone, in a process of its own (W0, the ceiling each target is paired
// with): a fresh app whose one route answers `{ ok: true }`, nothing of Gatehouse loaded.
if (args.bare) {
  const { FLOOR_HEADERS, floorTokenAnswer, readForm } = await import('./token-floor.mjs');
  const bare = createServer();
  if (args.adapter === 'express') {
    const express = requireFrom('express')('express');
    const app = express();
    app.disable('x-powered-by');
    app.get('/bench/ping', (_req, res) => {
      res.json({ ok: true });
    });
    app.post('/bench/token-floor', (req, res, next) => {
      readForm(req)
        .then((form) => {
          const answer = floorTokenAnswer(req.headers.authorization, form);
          if (!answer) return void res.status(400).json({ error: 'invalid_request' });
          return answer.then((json) => res.set(FLOOR_HEADERS).send(json));
        })
        .catch(next);
    });
    bare.on('request', app);
  } else if (args.adapter === 'hono') {
    const { Hono } = requireFrom('hono')('hono');
    const { getRequestListener } = requireFrom('hono')('@hono/node-server');
    const app = new Hono();
    app.get('/bench/ping', (c) => c.json({ ok: true }));
    app.post('/bench/token-floor', async (c) => {
      // @hono/node-server's Node request (`c.env.incoming`), as Gatehouse's adapter reads it.
      const answer = floorTokenAnswer(c.req.header('authorization'), await readForm(c.env.incoming));
      if (!answer) return c.json({ error: 'invalid_request' }, 400);
      return c.body(await answer, 200, FLOOR_HEADERS);
    });
    bare.on('request', getRequestListener(app.fetch));
  } else if (args.adapter === 'fastify') {
    const app = requireFrom('fastify')('fastify')({
      serverFactory: (handler) => bare.on('request', handler),
    });
    app.get('/bench/ping', (_request, reply) => {
      reply.send({ ok: true });
    });
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string' },
      (_request, body, done) => done(null, new URLSearchParams(body)),
    );
    app.post('/bench/token-floor', async (request, reply) => {
      const answer = floorTokenAnswer(request.headers.authorization, request.body);
      if (!answer) return reply.code(400).send({ error: 'invalid_request' });
      return reply.headers(FLOOR_HEADERS).send(await answer);
    });
    await app.ready();
  } else if (args.adapter === 'koa') {
    const Koa = requireFrom('koa')('koa');
    const app = new Koa();
    app.use(async (ctx, next) => {
      if (ctx.method === 'POST' && ctx.path === '/bench/token-floor') {
        const answer = floorTokenAnswer(ctx.get('authorization'), await readForm(ctx.req));
        if (!answer) {
          ctx.status = 400;
          ctx.body = { error: 'invalid_request' };
          return;
        }
        ctx.set(FLOOR_HEADERS);
        ctx.body = await answer;
        return;
      }
      if (ctx.method !== 'GET' || ctx.path !== '/bench/ping') return next();
      ctx.body = { ok: true };
    });
    bare.on('request', app.callback());
  } else {
    throw new Error(`--adapter must be express, koa, hono or fastify, not ${args.adapter}`);
  }
  await new Promise((resolve) => bare.listen(0, '127.0.0.1', resolve));
  for (const signal of ['SIGTERM', 'SIGINT']) {
    process.once(signal, () => {
      bare.closeAllConnections();
      bare.close(() => process.exit(0));
    });
  }
  console.log(`LISTENING ${bare.address().port}`);
  await new Promise(() => {});
}

const core = await import(new URL('packages/core/dist/index.js', root).href);

// --processes N (N > 1, Redis or PostgreSQL): the demo host as N processes of one port (Node's
// cluster, connections dealt round-robin by this primary) on one engine namespace, with one pair
// of signing keys (GATEHOUSE_SIGNING_KEY), so that any process serves any credential. The first
// process migrates the namespace before the others start. CPU per request is the whole process
// tree's (bench/harness.mjs).
const processes = Number(args.processes);
if (processes > 1 && cluster.isPrimary) {
  if (args.engine === 'memory') throw new Error('--processes needs a shared engine: --engine redis|postgres');
  const probe = createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const sharedPort = probe.address().port;
  await new Promise((resolve) => probe.close(resolve));
  const keys = [await core.generateKeys('ES256'), await core.generateKeys('RS256')];
  const env = {
    BENCH_PORT: String(sharedPort),
    BENCH_NAMESPACE: `gatehouse_bench_${process.pid}`,
    GATEHOUSE_SIGNING_KEY: JSON.stringify(keys),
  };
  const workers = [];
  for (let index = 0; index < processes; index++) {
    const worker = cluster.fork(env);
    workers.push(worker);
    await new Promise((resolve, reject) => {
      worker.once('message', (message) => message === 'ready' && resolve());
      worker.once('exit', (code) => reject(new Error(`bench worker exited with ${code}`)));
    });
  }
  for (const signal of ['SIGTERM', 'SIGINT']) {
    process.once(signal, async () => {
      await Promise.all(
        workers.map(
          (worker) =>
            new Promise((resolve) => {
              worker.once('exit', resolve);
              worker.process.kill('SIGTERM');
            }),
        ),
      );
      process.exit(0);
    });
  }
  console.log(`LISTENING ${sharedPort}`);
  await new Promise(() => {});
}
const engine = await import(new URL('packages/core/dist/engine.js', root).href);
const { createDemo, DEMO } = await import(new URL('examples/demo/src/index.ts', root).href);

/** PKCE pair (RFC 7636 Appendix B) used for every W3 code. */
const PKCE = {
  verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
  challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
};
/**
 * Scopes of minted credentials: W2's refresh tokens and W3's codes are those of an API client (no
 * `openid`, so no ID token: issue 46's method), with `api:read`, the scope W1's route asks for (the
 * access token of W1 and W4 comes from such a code). W3o's codes are OpenID Connect sign-ins (their
 * exchange signs an ID token, RS256); W2o refreshes an OpenID Connect grant (a new ID token each time).
 */
const SCOPE = 'openid tickets:read';
const API_SCOPE = 'api:read tickets:read offline_access';

// Listen first (port 0 = any free port), then build the demo for that port: its issuer names it.
// A cluster worker listens on the primary's port (BENCH_PORT), shared with its siblings.
const server = createServer();
await new Promise((resolve) => server.listen(Number(process.env.BENCH_PORT ?? 0), '127.0.0.1', resolve));
const port = server.address().port;
/**
 * The instance's storage: memory (every store), or a Redis / PostgreSQL
 * view of its own namespace (dropped at exit) with pushed revocations (BENCH_PUSHED=0: off).
 */
async function benchStorage(engine) {
  const namespace = process.env.BENCH_NAMESPACE ?? `gatehouse_bench_${process.pid}`;
  if (engine === 'memory') return { storage: core.memoryStorage(), drop: async () => {} };
  if (engine === 'redis') {
    const redis = await import(new URL('packages/redis/dist/index.js', root).href);
    const storage = redis.redisStorage({ url: process.env.REDIS_URL, prefix: namespace });
    await storage.ready();
    return {
      storage,
      drop: async () => {
        await storage.clear();
        await storage.close();
      },
    };
  }
  if (engine === 'postgres') {
    const postgres = await import(new URL('packages/postgres/dist/index.js', root).href);
    // BENCH_PG_POOL_MAX=<n>: the host's own pool of n connections (failFastPoolConfig, as the
    // engine's README shows) instead of the engine's default pool of 10.
    const poolMax = Number(process.env.BENCH_PG_POOL_MAX ?? 0);
    const pg = poolMax > 0 ? createRequire(new URL('packages/postgres/package.json', root))('pg') : undefined;
    const storage = postgres.postgresStorage({
      ...(pg
        ? { pool: new pg.Pool({ ...postgres.failFastPoolConfig(process.env.DATABASE_URL), max: poolMax }) }
        : { connectionString: process.env.DATABASE_URL }),
      schema: namespace,
    });
    await postgres.migrate(storage.pool, { schema: namespace });
    return {
      storage,
      drop: async () => {
        await storage.pool.query(`DROP SCHEMA IF EXISTS "${namespace}" CASCADE`);
        await storage.close();
        if (pg) await storage.pool.end();
      },
    };
  }
  throw new Error(`--engine must be memory, redis or postgres, not ${engine}`);
}
const { storage, drop } = await benchStorage(args.engine);
const grants = storage.grants;
const pushed = process.env.BENCH_PUSHED !== '0';
// The limiter charges each attempt before the password check (so concurrent guesses cannot slip
// through), so 32 concurrent logins of the one demo user would be refused with 429 by design. And
// when autocannon stops, the logins still in flight belong to clients that left: each is charged
// as a failure to the address (issue 23), so after two W5 windows the address limit (50) refused
// every login with 429 (run O). W5 measures logins, not the limiter's refusals: both bounds are
// raised; their cost is still paid.
// BENCH_ID_TOKEN_ALG=ES256: the instance holds an ES256 key only, so its ID tokens are ES256 (what a
// client registered with `id_token_signed_response_alg: ES256` gets; the demo's clients stay as
// seeded, and without an RS256 key the instance signs ID tokens with its access tokens' algorithm).
const idTokenAlg = process.env.BENCH_ID_TOKEN_ALG ?? 'RS256';
if (idTokenAlg !== 'RS256' && idTokenAlg !== 'ES256')
  throw new Error(`BENCH_ID_TOKEN_ALG must be RS256 or ES256, not ${idTokenAlg}`);
const demo = await createDemo({
  port,
  host: '127.0.0.1',
  warn: () => {},
  overrides: {
    storage,
    rateLimit: { maxFailuresPerUsername: 1_000_000, maxFailuresPerAddress: 1_000_000 },
    scopes: [...DEMO.scopes, DEMO.admin.scope, 'api:read'],
    // The engines' default (on for Redis and PostgreSQL); BENCH_PUSHED=0 measures off.
    ...(pushed ? {} : { pushedRevocations: false }),
    ...(idTokenAlg === 'ES256' ? { keys: [await core.generateKeys('ES256')] } : {}),
  },
});
const instance = demo.gatehouse;

function randomToken() {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
}

/**
 * Mints `count` credentials of `kind`, valid for `lifetime` seconds, and returns them (the secrets;
 * the store keeps hashes).
 */
async function mint(kind, count, lifetime) {
  const now = Date.now();
  const out = [];
  for (let i = 0; i < count; i++) {
    const secret = randomToken();
    const hash = await engine.hashSecret(secret);
    if (kind === 'refresh' || kind === 'refresh-openid') {
      await grants.saveRefreshToken({
        tokenHash: hash,
        grantId: crypto.randomUUID(),
        clientId: DEMO.client.id,
        subject: { kind: 'user', userId: DEMO.user.id },
        scope: kind === 'refresh' ? API_SCOPE : SCOPE,
        authTime: now,
        issuedAt: now,
        expiresAt: now + lifetime * 1000,
      });
    } else if (kind === 'code' || kind === 'code-api' || kind === 'access') {
      await grants.saveCode({
        codeHash: hash,
        clientId: DEMO.client.id,
        userId: DEMO.user.id,
        grantId: crypto.randomUUID(),
        redirectUri: demo.redirectUri,
        scope: kind === 'code' ? SCOPE : API_SCOPE,
        codeChallenge: PKCE.challenge,
        authTime: now,
        expiresAt: now + lifetime * 1000,
      });
    } else {
      throw new Error(`unknown kind ${kind}`);
    }
    out.push(kind === 'access' ? await redeem(secret) : secret);
  }
  return out;
}

/** Exchanges a code at the real token endpoint (in process) and returns the access token. */
async function redeem(code) {
  const body = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: demo.redirectUri,
    code_verifier: PKCE.verifier,
  });
  const response = await instance.fetch(
    new Request(`${demo.issuer}/oauth2/v1/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${btoa(`${DEMO.client.id}:${DEMO.client.secret}`)}`,
      },
      body,
    }),
  );
  if (response.status !== 200)
    throw new Error(`code exchange failed: ${response.status} ${await response.text()}`);
  return (await response.json()).access_token;
}

async function mintAnswer(searchParams) {
  const kind = searchParams.get('kind') ?? '';
  const count = Math.min(Number(searchParams.get('count') ?? 1), 2_000_000);
  const lifetime = Math.min(Math.max(Number(searchParams.get('lifetime') ?? 1800), 60), 86_400);
  return JSON.stringify({
    issuer: demo.issuer,
    redirectUri: demo.redirectUri,
    verifier: PKCE.verifier,
    tokens: await mint(kind, count, lifetime),
  });
}

/** W1's protection: a bearer token with the scope `api:read` (the access tokens minted below carry it). */
const PROTECTION = { schemes: ['bearer'], scope: 'api:read' };
/** W1's answer: the route's own `{ ok: true }`, with the caller. */
const apiAnswer = (auth) => ({ ok: true, sub: auth.sub, scope: auth.scope });

if (args.adapter === 'express') {
  const express = requireFrom('express')('express');
  const adapter = await import(new URL('packages/express/dist/index.js', root).href);
  const app = express();
  app.disable('x-powered-by');
  app.get('/bench/ping', (_req, res) => {
    res.json({ ok: true });
  });
  app.get('/bench/api', adapter.requireAuth(instance, PROTECTION), (_req, res) => {
    res.json(apiAnswer(res.locals.auth));
  });
  app.get(
    '/bench/floor',
    (req, res, next) => (req.headers.authorization ? next() : res.sendStatus(401)),
    (_req, res) => {
      res.json({ sub: 'floor' });
    },
  );
  app.post('/bench/mint', (req, res, next) => {
    mintAnswer(new URL(req.originalUrl, demo.origin).searchParams)
      .then((json) => res.type('json').send(json))
      .catch(next);
  });
  app.use('/demo', adapter.gatehouse(instance));
  server.on('request', app);
} else if (args.adapter === 'hono') {
  const { Hono } = requireFrom('hono')('hono');
  const { getRequestListener } = requireFrom('hono')('@hono/node-server');
  const adapter = await import(new URL('packages/hono/dist/index.js', root).href);
  const app = new Hono();
  app.get('/bench/ping', (c) => c.json({ ok: true }));
  app.get('/bench/api', adapter.requireAuth(instance, PROTECTION), (c) => c.json(apiAnswer(c.get('auth'))));
  // W1h: the same check in requireAuth's handler form (a one-handler route, no middleware chain).
  app.get(
    '/bench/api-handler',
    adapter.requireAuth(instance, PROTECTION, (c) => c.json(apiAnswer(c.get('auth')))),
  );
  app.get(
    '/bench/floor',
    async (c, next) => {
      if (!c.req.header('authorization')) return c.body(null, 401);
      await next();
    },
    (c) => c.json({ sub: 'floor' }),
  );
  app.post('/bench/mint', async (c) =>
    c.body(await mintAnswer(new URL(c.req.url).searchParams), 200, { 'content-type': 'application/json' }),
  );
  app.use('/demo/*', adapter.gatehouse(instance));
  server.on('request', getRequestListener(app.fetch));
} else if (args.adapter === 'fastify') {
  const Fastify = requireFrom('fastify')('fastify');
  const adapter = await import(new URL('packages/fastify/dist/index.js', root).href);
  // Fastify on the server made above (it is listening already, and the issuer names its port).
  const app = Fastify({
    serverFactory: (handler) => {
      server.on('request', handler);
      return server;
    },
  });
  app.get('/bench/ping', (_request, reply) => {
    reply.send({ ok: true });
  });
  app.get('/bench/api', { preHandler: adapter.requireAuth(instance, PROTECTION) }, (request, reply) => {
    reply.send(apiAnswer(request.auth));
  });
  app.get(
    '/bench/floor',
    {
      preHandler: (request, reply, done) => {
        if (request.headers.authorization) done();
        else reply.code(401).send();
      },
    },
    (_request, reply) => {
      reply.send({ sub: 'floor' });
    },
  );
  app.post('/bench/mint', async (request, reply) => {
    reply.type('application/json').send(await mintAnswer(new URL(request.url, demo.origin).searchParams));
    return reply;
  });
  await app.register(adapter.gatehouse, { instance });
  await app.ready();
} else if (args.adapter === 'koa') {
  // Koa 3 has no router: the bench routes are one dispatch on the path, the same for W0, F1 and W1
  // (so W0 stays a bare Koa route), and the instance is mounted with koa-mount.
  const Koa = requireFrom('koa')('koa');
  const mount = requireFrom('koa')('koa-mount');
  const adapter = await import(new URL('packages/koa/dist/index.js', root).href);
  const app = new Koa();
  const protect = adapter.requireAuth(instance, PROTECTION);
  const api = (ctx) => {
    ctx.body = apiAnswer(ctx.state.auth);
  };
  app.use((ctx, next) => {
    if (ctx.method === 'GET' && ctx.path === '/bench/ping') {
      ctx.body = { ok: true };
      return undefined;
    }
    if (ctx.method === 'GET' && ctx.path === '/bench/api') return protect(ctx, () => api(ctx));
    if (ctx.method === 'GET' && ctx.path === '/bench/floor') {
      if (!ctx.get('authorization')) {
        ctx.status = 401;
        return undefined;
      }
      ctx.body = { sub: 'floor' };
      return undefined;
    }
    if (ctx.method === 'POST' && ctx.path === '/bench/mint') {
      return mintAnswer(new URL(ctx.originalUrl, demo.origin).searchParams).then((json) => {
        ctx.type = 'json';
        ctx.body = json;
      });
    }
    return next();
  });
  app.use(mount('/demo', adapter.gatehouse(instance)));
  server.on('request', app.callback());
} else {
  throw new Error(`--adapter must be express, koa, hono or fastify, not ${args.adapter}`);
}

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => {
    server.closeAllConnections();
    server.close(() => drop().finally(() => process.exit(0)));
  });
}
// A worker tells its primary, which prints LISTENING once every worker is ready.
if (cluster.isWorker) process.send('ready');
else console.log(`LISTENING ${port}`);
