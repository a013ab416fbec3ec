import { defineOperations, resourceServer } from '@gatehousejs/core/protect';
import { gatehouse, getAuth, operations, requireAuth, type Servable, toRequest } from '@gatehousejs/express';
import express, { type Express } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import {
  echoInstance,
  endlessInstance,
  expectCodeExchangedAndRepeatRefused,
  expectPlatformRequests,
  expectTraceRefused,
  hangUpAfterFirstChunk,
  platformRequestProbe,
  probeOperations,
  resetProbe,
  sendRaw,
  sendResettable,
  serverRegistry,
} from '../../core/test/adapter-kit';
import { ISSUER, issueTokens, testInstance } from '../../core/test/fixtures';
import { API, API_CLIENT, introspectingIssuer, WORKER } from '../../core/test/introspecting-issuer';
import {
  bodyShapes,
  expectAnswersBehindResponseWrappers,
  responseWrappers,
} from '../../core/test/response-wrappers';

const servers = serverRegistry();
afterEach(() => servers.closeAll());

const listen = (app: Express) => servers.track(app.listen(0, '127.0.0.1'));

const echo = echoInstance;

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

describe('gatehouse() middleware', () => {
  it('rebuilds the public URL with the mount path', async () => {
    const app = express();
    app.use('/demo', gatehouse(echo));
    const base = await listen(app);
    const body = await (await fetch(`${base}/demo/oauth2/v1/token?x=1`)).json();
    expect(body.url).toBe(`${base}/demo/oauth2/v1/token?x=1`);
  });

  it('works mounted at the root and inside a nested router', async () => {
    const app = express();
    const router = express.Router();
    router.use('/inner', gatehouse(echo));
    app.use('/demo', router);
    const base = await listen(app);
    expect((await (await fetch(`${base}/demo/inner/x`)).json()).url).toBe(`${base}/demo/inner/x`);
  });

  it('falls through to the host for paths the instance does not serve', async () => {
    const app = express();
    app.use(gatehouse(echo));
    app.get('/hello', (_req, res) => {
      res.send('host route');
    });
    const base = await listen(app);
    expect(await (await fetch(`${base}/hello`)).text()).toBe('host route');
  });

  it('ignores X-Forwarded-* unless the app trusts the proxy', async () => {
    const forwarded = {
      'X-Forwarded-Proto': 'https',
      'X-Forwarded-Host': 'public.example',
      'X-Forwarded-For': '203.0.113.9',
    };
    const untrusting = express();
    untrusting.use('/demo', gatehouse(echo));
    const base = await listen(untrusting);
    const plain = await (await fetch(`${base}/demo/x`, { headers: forwarded })).json();
    expect({ url: plain.url, address: plain.address }).toEqual({
      url: `${base}/demo/x`,
      address: '127.0.0.1',
    });

    const trusting = express();
    trusting.set('trust proxy', 'loopback');
    trusting.use('/demo', gatehouse(echo));
    const proxied = await (await fetch(`${await listen(trusting)}/demo/x`, { headers: forwarded })).json();
    expect({ url: proxied.url, address: proxied.address }).toEqual({
      url: 'https://public.example/demo/x',
      address: '203.0.113.9',
    });
  });

  it('sends several Set-Cookie headers', async () => {
    const app = express();
    app.use('/demo', gatehouse(echo));
    const response = await fetch(`${await listen(app)}/demo/x`);
    expect(response.headers.getSetCookie()).toEqual(['one=1; Path=/; HttpOnly', 'two=2; Path=/; HttpOnly']);
  });

  it("keeps the host's own cookies beside the instance's", async () => {
    const app = express();
    app.use((_req, res, next) => {
      res.cookie('host_session', 'abc');
      next();
    });
    app.use('/demo', gatehouse(echo));
    const response = await fetch(`${await listen(app)}/demo/x`);
    expect(response.headers.getSetCookie()).toEqual([
      'host_session=abc; Path=/',
      'one=1; Path=/; HttpOnly',
      'two=2; Path=/; HttpOnly',
    ]);
  });

  it('never lets a Host header with a path, query or credentials move the request to another route', async () => {
    const app = express();
    app.use('/demo', gatehouse(echo));
    const base = new URL(await listen(app));
    for (const host of [`${base.host}/demo/admin?`, `${base.host}#frag`, `user@${base.host}`]) {
      const answer = await sendRaw(base.origin, 'GET', '/demo/oauth2/v1/token', { Host: host });
      expect(JSON.parse(answer.body).url).toBe('http://localhost/demo/oauth2/v1/token');
    }
  });

  it('does not resolve dot segments the host routed on raw (/x/../keys is not the JWKS route)', async () => {
    const t = await testInstance();
    const app = express();
    app.use('/demo', gatehouse(t.gatehouse));
    app.use((_req, res) => {
      res.status(404).send('host');
    });
    const base = await listen(app);
    const get = async (path: string) => {
      const { status, body } = await sendRaw(base, 'GET', path);
      return { status, body };
    };
    expect((await get('/demo/oauth2/v1/keys')).status).toBe(200);
    for (const path of [
      '/demo/x/../oauth2/v1/keys',
      '/demo/./oauth2/v1/keys',
      '/demo/x/%2e%2e/oauth2/v1/keys',
    ]) {
      expect(await get(path)).toEqual({ status: 404, body: 'host' });
    }
  });

  it('answers HEAD without a body', async () => {
    const app = express();
    app.use('/demo', gatehouse(echo));
    const response = await fetch(`${await listen(app)}/demo/x`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
  });

  it('streams the body when no parser ran, and passes an empty body as empty', async () => {
    const app = express();
    app.use('/demo', gatehouse(echo));
    const base = await listen(app);
    const big = 'a='.concat('b'.repeat(1024 * 1024));
    expect((await (await fetch(`${base}/demo/x`, { method: 'POST', body: big })).json()).body).toBe(big);
    expect((await (await fetch(`${base}/demo/x`, { method: 'POST' })).json()).body).toBe('');
  });

  it('re-encodes bodies that express.json() and express.urlencoded() already parsed', async () => {
    const app = express();
    app.use(express.json(), express.urlencoded());
    app.use('/demo', gatehouse(echo));
    const base = await listen(app);
    const json = await (
      await fetch(`${base}/demo/x`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{ "limit": 5 }',
      })
    ).json();
    expect(JSON.parse(json.body)).toEqual({ limit: 5 });
    const urlencoded = await (await fetch(`${base}/demo/x`, form({ a: 'x y+z', b: 'é' }))).json();
    expect(Object.fromEntries(new URLSearchParams(urlencoded.body))).toEqual({ a: 'x y+z', b: 'é' });
  });

  it('passes the raw bytes when a parser kept them in req.rawBody', async () => {
    const app = express();
    app.use(
      express.urlencoded({
        verify: (req, _res, buf) => {
          (req as { rawBody?: Buffer }).rawBody = buf;
        },
      }),
    );
    app.use('/demo', gatehouse(echo));
    const original = 'z=1&a=%7E&a=%7e';
    const response = await fetch(`${await listen(app)}/demo/x`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: original,
    });
    expect((await response.json()).body).toBe(original);
  });
});

describe('client disconnects', () => {
  it('aborts the request signal and cancels the response body when the client hangs up', async () => {
    const { instance: endless, hungUp } = endlessInstance();
    const app = express();
    app.use('/demo', gatehouse(endless));
    hangUpAfterFirstChunk(`${await listen(app)}/demo/endless`);
    await hungUp;
  });
});

describe('client resets', () => {
  it('keeps the client address (req.ip) of a request whose client reset the connection', async () => {
    for (const mount of [gatehouse, (probe: Servable) => operations((request) => probe.fetch(request))]) {
      const probe = resetProbe();
      const app = express();
      app.use('/demo', mount(probe.instance));
      // A GET, so that nothing needs the socket before the reset (operations() builds the URL only
      // when read): the address must have been taken as the request was built.
      const reset = await sendResettable(await listen(app), 'GET', '/demo/x');
      await probe.received;
      reset();
      expect(await probe.addressAfterReset).toBe('127.0.0.1');
    }
  });
});

describe('methods new Request() refuses', () => {
  it('answers TRACE on the instance and operations paths 405 with Allow, and leaves other paths to the host', async () => {
    const t = await testInstance();
    const app = express();
    app.use('/demo', gatehouse(t.gatehouse));
    app.use(
      '/demo',
      operations(
        defineOperations(t.gatehouse, {
          'POST /api/v1/things': { schemes: ['bearer'], handler: () => Response.json({}) },
        }),
      ),
    );
    app.use((_req, res) => {
      res.status(404).send('host');
    });
    const base = await listen(app);
    await expectTraceRefused(
      base,
      [
        ['/demo/oauth2/v1/token', 'POST'],
        ['/demo/oauth2/v1/keys', 'GET, HEAD'],
        ['/demo/api/v1/things', 'POST'],
      ],
      { path: '/elsewhere', status: 404, body: 'host' },
    );
  });
});

describe('gatehouse() with a real instance', () => {
  for (const parsed of [false, true]) {
    const label = parsed ? 'after express.urlencoded()' : 'without a body parser';
    it(`exchanges a code ${label}, and still refuses a repeated parameter`, async () => {
      const t = await testInstance();
      const app = express();
      if (parsed) app.use(express.urlencoded());
      app.use('/demo', gatehouse(t.gatehouse));
      const base = await listen(app);
      await expectCodeExchangedAndRepeatRefused(t, (init) => fetch(`${base}/demo/oauth2/v1/token`, init));
    });
  }
});

describe('behind middleware wrapping res.write/res.end', () => {
  it('answers whole behind express-session, compression and a hand-written wrapper', async () => {
    const t = await testInstance();
    const wrappers = responseWrappers();
    const app = express();
    app.use(wrappers.use);
    app.use(gatehouse(t.gatehouse));
    app.use(operations(bodyShapes));
    await expectAnswersBehindResponseWrappers(await listen(app), wrappers.calls);
  });
});

describe('gatehouse() mounted at a path other than the issuer path', () => {
  it("falls through to Express's 404 and the instance logs one warning naming both paths", async () => {
    const warnings: string[] = [];
    const t = await testInstance({ logger: { warn: (message) => warnings.push(message), error() {} } });
    const app = express();
    app.use('/auth', gatehouse(t.gatehouse)); // the issuer is http://localhost:3000/demo
    const base = await listen(app);
    for (let i = 0; i < 2; i++) {
      expect((await fetch(`${base}/auth/.well-known/openid-configuration`)).status).toBe(404);
    }
    expect(
      warnings.filter((w) => w.includes('is mounted at /auth, but its routes are below /demo')),
    ).toHaveLength(1);
  });

  it('logs nothing about the mount at the issuer path and at /.well-known', async () => {
    const warnings: string[] = [];
    const t = await testInstance({ logger: { warn: (message) => warnings.push(message), error() {} } });
    const app = express();
    app.use('/demo', gatehouse(t.gatehouse));
    app.use('/.well-known', gatehouse(t.gatehouse));
    const base = await listen(app);
    expect((await fetch(`${base}/demo/.well-known/openid-configuration`)).status).toBe(200);
    expect((await fetch(`${base}/.well-known/oauth-authorization-server/demo`)).status).toBe(200);
    expect(warnings.filter((w) => w.includes('is mounted at'))).toEqual([]);
  });
});

describe('operations()', () => {
  it('answers the paths of its table and leaves other requests, body included, to the host', async () => {
    const app = express();
    app.use(
      '/demo',
      operations(async (request) =>
        new URL(request.url).pathname === '/demo/api/v1/mine' ? new Response('mine') : undefined,
      ),
    );
    app.post('/demo/other', express.json(), (req, res) => {
      res.json(req.body);
    });
    const base = await listen(app);
    expect(await (await fetch(`${base}/demo/api/v1/mine`)).text()).toBe('mine');
    const other = await fetch(`${base}/demo/other`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"kept":true}',
    });
    expect(await other.json()).toEqual({ kept: true });
  });
});

describe('requireAuth()', () => {
  async function protectedApp() {
    const t = await testInstance();
    const app = express();
    app.post('/api/things', requireAuth(t.gatehouse, { schemes: ['bearer'] }), express.json(), (req, res) => {
      res.json({ sub: res.locals.auth?.sub, scheme: getAuth(req)?.scheme, body: req.body });
    });
    return { t, base: await listen(app) };
  }

  it('takes a resource server apart from the instance in place of the instance', async () => {
    const t = await testInstance();
    t.clock.advance((Date.now() - t.clock.now()) / 1000); // the resource server checks with the real clock
    const { access_token } = await issueTokens(t);
    const tokens = resourceServer({
      issuer: `${ISSUER}/`,
      resource: `${ISSUER}/api/v1`,
      fetch: (url, init) => t.gatehouse.fetch(new Request(url, init)),
    });
    const app = express();
    app.get('/tickets', requireAuth(tokens, { schemes: ['bearer'], scope: 'read' }), (req, res) => {
      res.json({ sub: getAuth(req)?.sub });
    });
    const base = await listen(app);
    const ok = await fetch(`${base}/tickets`, { headers: { Authorization: `Bearer ${access_token}` } });
    expect(await ok.json()).toEqual({ sub: 'user-1' });
    const none = await fetch(`${base}/tickets`);
    expect(none.status).toBe(401);
  });

  it('takes a resource server that introspects: active accepted, revoked refused, endpoint down 503', async () => {
    const issuer = await introspectingIssuer();
    try {
      const tokens = resourceServer({
        issuer: issuer.issuer,
        resource: API,
        introspection: { clientId: API_CLIENT.id, clientSecret: API_CLIENT.secret, cacheTtl: 0 },
      });
      const app = express();
      app.get(
        '/reports',
        requireAuth(tokens, { schemes: ['bearer'], scope: 'reports:read', subjects: ['client'] }),
        (req, res) => {
          res.json({ sub: getAuth(req)?.sub, scope: getAuth(req)?.scope });
        },
      );
      const base = await listen(app);
      const call = (token: string) =>
        fetch(`${base}/reports`, { headers: { Authorization: `Bearer ${token}` } });
      const token = await issuer.token();
      const ok = await call(token);
      expect(await ok.json()).toEqual({ sub: WORKER.id, scope: ['reports:read'] });
      await issuer.revoke(token);
      const revoked = await call(token);
      expect(revoked.status).toBe(401);
      expect(revoked.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
      const fresh = await issuer.token();
      await issuer.stop();
      const down = await call(fresh);
      expect(down.status).toBe(503);
      expect((await down.json()).error).toBe('temporarily_unavailable');
    } finally {
      await issuer.stop().catch(() => {});
    }
  });

  it('puts the caller on res.locals.auth (getAuth) and leaves the body to the route', async () => {
    const { t, base } = await protectedApp();
    const { access_token } = await issueTokens(t);
    const response = await fetch(`${base}/api/things`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${access_token}`, 'Content-Type': 'application/json' },
      body: '{"limit":2}',
    });
    expect(await response.json()).toEqual({ sub: 'user-1', scheme: 'bearer', body: { limit: 2 } });
  });

  it('answers 401 with a Bearer challenge without credentials, and for a bad token', async () => {
    const { base } = await protectedApp();
    const none = await fetch(`${base}/api/things`, { method: 'POST' });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer /);
    const bad = await fetch(`${base}/api/things`, {
      method: 'POST',
      headers: { Authorization: 'Bearer not.a.token' },
    });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });

  it('keeps the caller per request, for later handlers and mounted sub-apps, and leaves Express alone', async () => {
    const t = await testInstance();
    const { access_token } = await issueTokens(t);
    const sub = express();
    // Protected inside a sub-app whose routes do not answer: the request leaves it with the caller.
    sub.use(requireAuth(t.gatehouse, { schemes: ['bearer'] }));
    const app = express();
    app.use('/sub', sub);
    app.get('/sub/who', (req, res) => {
      res.json({ sub: getAuth(req)?.sub ?? null, locals: res.locals.auth?.sub ?? null });
    });
    app.get('/open', (req, res) => {
      const before = getAuth(req) ?? null;
      // Other middleware may use req.auth (as other auth libraries do): Gatehouse neither sets nor reads it.
      (req as { auth?: unknown }).auth = 'theirs';
      res.json({ before, theirs: (req as { auth?: unknown }).auth });
    });
    const base = await listen(app);
    const bearer = { headers: { Authorization: `Bearer ${access_token}` } };
    expect(await (await fetch(`${base}/sub/who`, bearer)).json()).toEqual({
      sub: 'user-1',
      locals: 'user-1',
    });
    expect(await (await fetch(`${base}/open`)).json()).toEqual({ before: null, theirs: 'theirs' });
    // Nothing leaks from one request to the next, and Express's request prototypes stay untouched.
    expect((await fetch(`${base}/sub/who`)).status).toBe(401);
    expect(await (await fetch(`${base}/open`, bearer)).json()).toEqual({ before: null, theirs: 'theirs' });
    for (let proto = Object.getPrototypeOf(app.request); proto; proto = Object.getPrototypeOf(proto)) {
      expect(Object.getOwnPropertyNames(proto)).not.toContain('auth');
    }
  });
});

describe('requests handed to host code (issue 42)', () => {
  it('are platform Requests in operations handlers and from toRequest: new Request(r), clone, fetch(r), bodies', async () => {
    const t = await testInstance();
    const { access_token } = await issueTokens(t);
    const probe = platformRequestProbe();
    const app = express();
    app.use('/demo', operations(probeOperations(t)));
    app.all('/host/probe', (req, res, next) => {
      probe(toRequest(req, res))
        .then(async (response) =>
          res
            .status(response.status)
            .type('json')
            .send(await response.text()),
        )
        .catch(next);
    });
    const base = await listen(app);
    await expectPlatformRequests(`${base}/demo/api/v1/probe`, `Bearer ${access_token}`);
    await expectPlatformRequests(`${base}/host/probe`);
  });
});
