import formbody from '@fastify/formbody';
import { defineOperations } from '@gatehousejs/core/protect';
import { gatehouse, requireAuth, toRequest } from '@gatehousejs/fastify';
import Fastify5, { type FastifyInstance } from 'fastify';
// Fastify 4 through an npm alias: the adapter supports both majors, and both run every test below.
import Fastify4 from 'fastify4';
import formbody4 from 'formbody4';
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
  sendResettable,
} from '../../core/test/adapter-kit';
import { issueTokens, testInstance } from '../../core/test/fixtures';
import { protectInstance } from '../../core/test/protect-fixtures';
import {
  bodyShapes,
  expectAnswersBehindResponseWrappers,
  responseWrappers,
} from '../../core/test/response-wrappers';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

/** Starts `app` on a free loopback port and returns its base URL. */
async function listen(app: FastifyInstance): Promise<string> {
  apps.push(app);
  return app.listen({ port: 0, host: '127.0.0.1' });
}

/** The echo double serves `/demo/...` and has no `basePath`: the plugin is told the path. */
const echo = { instance: echoInstance, path: '/demo' };

const FORM = 'application/x-www-form-urlencoded';

/** Each major with the `@fastify/formbody` made for it (a body-parsing plugin registered before ours). */
const versions = [
  ['Fastify 5', Fastify5, formbody],
  ['Fastify 4', Fastify4 as unknown as typeof Fastify5, formbody4 as unknown as typeof formbody],
] as const;

describe.each(versions)('on %s', (_version, Fastify, formbody) => {
  describe('gatehouse plugin', () => {
    it('answers the instance routes with the full URL, and leaves other paths and routes to the app', async () => {
      const app = Fastify();
      await app.register(gatehouse, echo);
      app.get('/demo/host-route', async () => 'host route');
      app.setNotFoundHandler((_request, reply) => {
        reply.code(404).send('app not found');
      });
      const base = await listen(app);
      expect((await (await fetch(`${base}/demo/oauth2/v1/token?x=1`)).json()).url).toBe(
        `${base}/demo/oauth2/v1/token?x=1`,
      );
      expect(await (await fetch(`${base}/demo/host-route`)).text()).toBe('host route');
      const elsewhere = await fetch(`${base}/other`);
      expect({ status: elsewhere.status, body: await elsewhere.text() }).toEqual({
        status: 404,
        body: 'app not found',
      });
    });

    it('falls through to the not-found handler for instance paths the instance does not serve', async () => {
      const t = await testInstance();
      const app = Fastify();
      await app.register(gatehouse, { instance: t.gatehouse });
      const base = await listen(app);
      const unknown = await fetch(`${base}/demo/oauth2/v1/nothing-here`);
      expect(unknown.status).toBe(404);
      expect((await unknown.json()).message).toMatch(/not found/i);
      // RFC 8414 §3: the metadata also at the path-inserted location, served at the root.
      const metadata = await fetch(`${base}/.well-known/oauth-authorization-server/demo`);
      expect((await metadata.json()).issuer).toBe(t.gatehouse.issuer);
    });

    it('serves the instance under the prefix of the context it is registered in', async () => {
      const app = Fastify();
      await app.register(
        async (scope) => {
          await scope.register(gatehouse, {
            instance: { ...echoInstance, handles: () => true },
            path: '/auth/demo',
          });
        },
        { prefix: '/auth' },
      );
      const base = await listen(app);
      expect((await (await fetch(`${base}/auth/demo/x`)).json()).url).toBe(`${base}/auth/demo/x`);

      const misplaced = Fastify();
      misplaced.register(async (scope) => scope.register(gatehouse, echo), { prefix: '/elsewhere' });
      await expect(misplaced.ready()).rejects.toThrow(/not under this context's prefix/);
    });

    it('ignores X-Forwarded-* unless the app trusts the proxy', async () => {
      const forwarded = {
        'X-Forwarded-Proto': 'https',
        'X-Forwarded-Host': 'public.example',
        'X-Forwarded-For': '203.0.113.9',
      };
      const plain = Fastify();
      await plain.register(gatehouse, echo);
      const base = await listen(plain);
      const seen = await (await fetch(`${base}/demo/x`, { headers: forwarded })).json();
      expect({ url: seen.url, address: seen.address }).toEqual({
        url: `${base}/demo/x`,
        address: '127.0.0.1',
      });

      const trusting = Fastify({ trustProxy: '127.0.0.1' });
      await trusting.register(gatehouse, echo);
      const proxied = await (await fetch(`${await listen(trusting)}/demo/x`, { headers: forwarded })).json();
      expect({ url: proxied.url, address: proxied.address }).toEqual({
        url: 'https://public.example/demo/x',
        address: '203.0.113.9',
      });
    });

    it("sends several Set-Cookie headers beside the app's own, and no body for HEAD", async () => {
      const app = Fastify();
      app.addHook('onRequest', async (_request, reply) => {
        reply.header('set-cookie', 'host_session=abc; Path=/');
        reply.header('x-host', 'kept');
      });
      await app.register(gatehouse, echo);
      const base = await listen(app);
      const response = await fetch(`${base}/demo/x`);
      expect(response.headers.get('x-host')).toBe('kept');
      expect(response.headers.getSetCookie()).toEqual([
        'host_session=abc; Path=/',
        'one=1; Path=/; HttpOnly',
        'two=2; Path=/; HttpOnly',
      ]);
      const head = await fetch(`${base}/demo/x`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(await head.text()).toBe('');
    });

    it('streams large bodies and passes empty ones as empty', async () => {
      const app = Fastify();
      await app.register(gatehouse, echo);
      const base = await listen(app);
      const big = 'x'.repeat(2 * 1024 * 1024);
      expect((await (await fetch(`${base}/demo/x`, { method: 'POST', body: big })).json()).body).toBe(big);
      expect((await (await fetch(`${base}/demo/x`, { method: 'POST' })).json()).body).toBe('');
    });

    it("gets the raw bytes of forms and JSON after a body-parsing plugin, while the app's routes keep their parsers", async () => {
      const app = Fastify();
      await app.register(formbody);
      await app.register(gatehouse, echo);
      app.post('/host/json', async (request) => ({ parsed: request.body }));
      app.post('/host/form', async (request) => ({ parsed: request.body }));
      const base = await listen(app);
      // Byte-faithful: the order, the repeated name and the encoding are the client's.
      const form = 'z=1&a=%7E&a=%7e';
      const echoed = await fetch(`${base}/demo/x`, {
        method: 'POST',
        headers: { 'Content-Type': FORM },
        body: form,
      });
      expect((await echoed.json()).body).toBe(form);
      const json = '{ "limit": 5 }';
      const rawJson = await fetch(`${base}/demo/x`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: json,
      });
      expect((await rawJson.json()).body).toBe(json);
      const hostJson = await fetch(`${base}/host/json`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: json,
      });
      expect(await hostJson.json()).toEqual({ parsed: { limit: 5 } });
      const hostForm = await fetch(`${base}/host/form`, {
        method: 'POST',
        headers: { 'Content-Type': FORM },
        body: 'b=2',
      });
      expect(await hostForm.json()).toEqual({ parsed: { b: '2' } });
    });
  });

  describe('client disconnects and resets', () => {
    it('aborts the request signal and cancels the response body when the client hangs up', async () => {
      const { instance: endless, hungUp } = endlessInstance();
      const app = Fastify();
      await app.register(gatehouse, { instance: endless, path: '/demo' });
      hangUpAfterFirstChunk(`${await listen(app)}/demo/endless`);
      await hungUp;
    });

    it('keeps the client address (request.ip) of a request whose client reset the connection', async () => {
      const probe = resetProbe();
      const app = Fastify();
      await app.register(gatehouse, { instance: probe.instance, path: '/demo' });
      const reset = await sendResettable(await listen(app), 'POST', '/demo/auth/v1/token', {}, 'a=1');
      await probe.received;
      reset();
      expect(await probe.addressAfterReset).toBe('127.0.0.1');
    });
  });

  describe('with a real instance', () => {
    it('exchanges a code after a form parser was registered, and still refuses a repeated parameter', async () => {
      const t = await testInstance();
      const app = Fastify();
      await app.register(formbody);
      await app.register(gatehouse, { instance: t.gatehouse });
      const base = await listen(app);
      await expectCodeExchangedAndRepeatRefused(t, (init) => fetch(`${base}/demo/oauth2/v1/token`, init));
    });

    it('answers TRACE on the instance and operations paths 405 with Allow, and leaves other paths to the app', async () => {
      const t = await testInstance();
      const app = Fastify();
      await app.register(gatehouse, {
        instance: t.gatehouse,
        operations: defineOperations(t.gatehouse, {
          'POST /api/v1/things': { schemes: ['bearer'], handler: () => Response.json({}) },
        }),
      });
      const base = await listen(app);
      await expectTraceRefused(
        base,
        [
          ['/demo/oauth2/v1/token', 'POST'],
          ['/.well-known/oauth-authorization-server/demo', 'GET, HEAD'],
          ['/demo/api/v1/things', 'POST'],
        ],
        { path: '/demo/nothing', status: 404 },
      );
    });
  });

  describe('behind middleware wrapping res.write/res.end', () => {
    it('answers whole behind express-session, compression and a hand-written wrapper (run on the raw request)', async () => {
      const t = await testInstance();
      const wrappers = responseWrappers();
      const app = Fastify();
      app.addHook('onRequest', (request, reply, done) => wrappers.use(request.raw, reply.raw, done as never));
      await app.register(gatehouse, { instance: t.gatehouse, operations: bodyShapes });
      await expectAnswersBehindResponseWrappers(await listen(app), wrappers.calls);
    });
  });

  describe('operations', () => {
    it('answers the paths of its table after the instance, and leaves the others to the app', async () => {
      const t = await testInstance();
      const { access_token } = await issueTokens(t);
      const app = Fastify();
      await app.register(formbody);
      await app.register(gatehouse, {
        instance: t.gatehouse,
        operations: defineOperations(t.gatehouse, {
          'POST /api/v1/things': {
            schemes: ['bearer'],
            handler: async (request, caller) =>
              Response.json({ sub: caller.sub, body: await request.text() }),
          },
        }),
      });
      const base = await listen(app);
      const things = await fetch(`${base}/demo/api/v1/things`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${access_token}`, 'Content-Type': FORM },
        body: 'b=%7e&b=2',
      });
      expect(await things.json()).toEqual({ sub: 'user-1', body: 'b=%7e&b=2' });
      expect((await fetch(`${base}/demo/api/v1/other`)).status).toBe(404);
    });
  });

  describe('requireAuth', () => {
    async function protectedApp() {
      const t = await protectInstance();
      const app = Fastify();
      await app.register(gatehouse, { instance: t.gatehouse });
      const protect = { preHandler: requireAuth(t.gatehouse, { schemes: ['bearer', 'session'] }) };
      app.post('/api/things', protect, async (request) => ({
        sub: request.auth?.sub,
        scheme: request.auth?.scheme,
        body: request.body,
      }));
      app.get('/me', protect, async (request) => ({ sub: request.auth?.sub, scheme: request.auth?.scheme }));
      app.get('/open', async (request) => ({ auth: request.auth }));
      return { t, base: await listen(app) };
    }

    it('puts a bearer caller on request.auth and leaves the JSON body to the route', async () => {
      const { t, base } = await protectedApp();
      const response = await fetch(`${base}/api/things`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${await t.oauthToken()}`, 'Content-Type': 'application/json' },
        body: '{"limit":2}',
      });
      expect(await response.json()).toEqual({ sub: 'user-1', scheme: 'bearer', body: { limit: 2 } });
    });

    it('puts a session caller on request.auth, and request.auth stays null on other routes', async () => {
      const { t, base } = await protectedApp();
      const cookie = await t.sessionCookie();
      const me = await fetch(`${base}/me`, { headers: { Cookie: cookie } });
      expect(await me.json()).toEqual({ sub: 'user-1', scheme: 'session' });
      expect(await (await fetch(`${base}/open`, { headers: { Cookie: cookie } })).json()).toEqual({
        auth: null,
      });
    });

    it('answers 401 with a Bearer challenge without credentials, and for a bad token', async () => {
      const { base } = await protectedApp();
      const none = await fetch(`${base}/api/things`, { method: 'POST' });
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toMatch(/^Bearer /);
      const bad = await fetch(`${base}/me`, { headers: { Authorization: 'Bearer not.a.token' } });
      expect(bad.status).toBe(401);
      expect(bad.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    });
  });

  describe('toRequest', () => {
    it('re-encodes a body Fastify already parsed, for a route of the app', async () => {
      const app = Fastify();
      await app.register(formbody);
      app.post('/custom', async (request) => {
        const webRequest = toRequest(request);
        return { url: webRequest.url, body: await webRequest.text() };
      });
      const base = await listen(app);
      const response = await fetch(`${base}/custom`, {
        method: 'POST',
        headers: { 'Content-Type': FORM },
        body: 'a=1&a=2',
      });
      expect(await response.json()).toEqual({ url: `${base}/custom`, body: 'a=1&a=2' });
    });
  });
});

describe('requests handed to host code (issue 42)', () => {
  it('are platform Requests in operations handlers and from toRequest: new Request(r), clone, fetch(r), bodies', async () => {
    const t = await testInstance();
    const { access_token } = await issueTokens(t);
    const probe = platformRequestProbe();
    const app = Fastify5();
    await app.register(gatehouse, { instance: t.gatehouse, operations: probeOperations(t) });
    // No body parser on this route: toRequest streams the body to the host.
    app.addContentTypeParser('*', (_request, _payload, done) => done(null));
    app.route({
      method: ['GET', 'POST', 'PUT'],
      url: '/host/probe',
      handler: async (request, reply) => {
        const response = await probe(toRequest(request, reply));
        return reply
          .status(response.status)
          .type('application/json')
          .send(await response.text());
      },
    });
    const base = await listen(app);
    await expectPlatformRequests(`${base}/demo/api/v1/probe`, `Bearer ${access_token}`);
    await expectPlatformRequests(`${base}/host/probe`);
  });
});
