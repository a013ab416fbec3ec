import { defineOperations } from '@gatehousejs/core/protect';
import { type AuthState, gatehouse, operations, requireAuth, toRequest } from '@gatehousejs/koa';
import { bodyParser } from '@koa/bodyparser';
import Koa3 from 'koa';
import mount from 'koa-mount';
// Koa 2 through an npm alias: the adapter supports both majors, and both run every test below.
import Koa2 from 'koa2';
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
  serverRegistry,
} from '../../core/test/adapter-kit';
import { issueTokens, testInstance } from '../../core/test/fixtures';
import {
  bodyShapes,
  expectAnswersBehindResponseWrappers,
  responseWrappers,
} from '../../core/test/response-wrappers';

const servers = serverRegistry();
afterEach(() => servers.closeAll());

const listen = (app: Koa3) => servers.track(app.listen(0, '127.0.0.1'));

const echo = echoInstance;

const versions = [
  ['Koa 3', Koa3],
  ['Koa 2', Koa2],
] as const;

describe.each(versions)('on %s', (_version, Koa) => {
  describe('gatehouse() middleware', () => {
    it('sees the full URL at the root and under koa-mount, nested or not', async () => {
      const echoAll = { ...echo, handles: () => true };
      const app = new Koa();
      app.use(mount('/demo', gatehouse(echoAll)));
      app.use(mount('/outer', mount('/demo', gatehouse(echoAll))));
      const base = await listen(app);
      for (const path of ['/demo/oauth2/v1/token?x=1', '/outer/demo/oauth2/v1/token?x=1']) {
        expect((await (await fetch(base + path)).json()).url).toBe(base + path);
      }
    });

    it('routes on ctx.url as middleware rewrote it outside any mount, also after the request left one', async () => {
      const echoAll = { ...echo, handles: () => true };
      const app = new Koa();
      app.use(async (ctx, next) => {
        if (ctx.path.startsWith('/v2/')) ctx.url = ctx.url.slice('/v2'.length);
        else if (ctx.path === '/alias') ctx.url = '/demo/oauth2/v1/token?from=alias';
        await next();
      });
      // A mount the request passes through and leaves (koa-mount leaves ctx.mountPath set).
      app.use(mount('/demo', (_ctx, next) => next()));
      app.use(gatehouse(echoAll));
      const base = await listen(app);
      const urlOf = async (path: string) => (await (await fetch(base + path)).json()).url;
      // A prefix a rewrite stripped is not a mount path.
      expect(await urlOf('/v2/demo/oauth2/v1/token')).toBe(`${base}/demo/oauth2/v1/token`);
      expect(await urlOf('/alias')).toBe(`${base}/demo/oauth2/v1/token?from=alias`);
      expect(await urlOf('/demo/x?y=1')).toBe(`${base}/demo/x?y=1`);
    });

    it('puts the mount back when middleware inside it rewrote the path or the query', async () => {
      const app = new Koa();
      app.use(
        mount('/demo', async (ctx, next) => {
          if (ctx.path === '/token') ctx.url = '/oauth2/v1/token?rewritten=path';
          else if (ctx.query.q) ctx.querystring = 'rewritten=query';
          await gatehouse(echo)(ctx, next);
        }),
      );
      const base = await listen(app);
      const urlOf = async (path: string) => (await (await fetch(base + path)).json()).url;
      expect(await urlOf('/demo/token?a=1')).toBe(`${base}/demo/oauth2/v1/token?rewritten=path`);
      expect(await urlOf('/demo/oauth2/v1/token?q=1')).toBe(`${base}/demo/oauth2/v1/token?rewritten=query`);
    });

    it('falls through to the next middleware for other paths', async () => {
      const app = new Koa();
      app.use(gatehouse(echo));
      app.use((ctx) => {
        ctx.body = 'host route';
      });
      expect(await (await fetch(`${await listen(app)}/hello`)).text()).toBe('host route');
    });

    it('ignores X-Forwarded-* unless app.proxy is set', async () => {
      const forwarded = {
        'X-Forwarded-Proto': 'https',
        'X-Forwarded-Host': 'public.example',
        'X-Forwarded-For': '203.0.113.9',
      };
      const plainApp = new Koa();
      plainApp.use(gatehouse(echo));
      const base = await listen(plainApp);
      const plain = await (await fetch(`${base}/demo/x`, { headers: forwarded })).json();
      expect({ url: plain.url, address: plain.address }).toEqual({
        url: `${base}/demo/x`,
        address: '127.0.0.1',
      });

      const proxiedApp = new Koa({ proxy: true });
      proxiedApp.use(gatehouse(echo));
      const proxied = await (
        await fetch(`${await listen(proxiedApp)}/demo/x`, { headers: forwarded })
      ).json();
      expect({ url: proxied.url, address: proxied.address }).toEqual({
        url: 'https://public.example/demo/x',
        address: '203.0.113.9',
      });
    });

    it('sends several Set-Cookie headers, and no body for HEAD', async () => {
      const app = new Koa();
      app.use(gatehouse(echo));
      const base = await listen(app);
      const response = await fetch(`${base}/demo/x`);
      expect(response.headers.getSetCookie()).toEqual(['one=1; Path=/; HttpOnly', 'two=2; Path=/; HttpOnly']);
      const head = await fetch(`${base}/demo/x`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(await head.text()).toBe('');
    });

    it('streams large bodies and passes empty ones as empty', async () => {
      const app = new Koa();
      app.use(gatehouse(echo));
      const base = await listen(app);
      const big = 'x'.repeat(2 * 1024 * 1024);
      expect((await (await fetch(`${base}/demo/x`, { method: 'POST', body: big })).json()).body).toBe(big);
      expect((await (await fetch(`${base}/demo/x`, { method: 'POST' })).json()).body).toBe('');
    });

    it('uses the raw body @koa/bodyparser kept', async () => {
      const app = new Koa();
      app.use(bodyParser());
      app.use(gatehouse(echo));
      const base = await listen(app);
      const original = 'z=1&a=%7E&a=%7e';
      const response = await fetch(`${base}/demo/x`, {
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
      const app = new Koa();
      // Koa reports the reset connection through app.on('error') like any aborted response: expected here.
      app.silent = true;
      app.use(gatehouse(endless));
      hangUpAfterFirstChunk(`${await listen(app)}/demo/endless`);
      await hungUp;
    });
  });

  describe('client resets', () => {
    it('keeps the client address (ctx.ip) of a request whose client reset the connection', async () => {
      const probe = resetProbe();
      const app = new Koa();
      app.silent = true; // the reset surfaces through app.on('error'): expected here
      app.use(gatehouse(probe.instance));
      const reset = await sendResettable(await listen(app), 'POST', '/demo/auth/v1/token', {}, 'a=1');
      await probe.received;
      reset();
      expect(await probe.addressAfterReset).toBe('127.0.0.1');
    });
  });

  describe('methods new Request() refuses', () => {
    it('answers TRACE on the instance and operations paths 405 with Allow, and leaves other paths to the host', async () => {
      const t = await testInstance();
      const app = new Koa();
      app.use(gatehouse(t.gatehouse));
      app.use(
        operations(
          defineOperations(t.gatehouse, {
            'POST /api/v1/things': { schemes: ['bearer'], handler: () => Response.json({}) },
          }),
        ),
      );
      app.use((ctx) => {
        ctx.status = 404;
        ctx.body = 'host';
      });
      const base = await listen(app);
      await expectTraceRefused(
        base,
        [
          ['/demo/oauth2/v1/token', 'POST'],
          ['/demo/.well-known/oauth-authorization-server', 'GET, HEAD'],
          ['/.well-known/oauth-authorization-server/demo', 'GET, HEAD'],
          ['/demo/api/v1/things', 'POST'],
        ],
        { path: '/elsewhere', status: 404, body: 'host' },
      );
    });
  });

  describe('gatehouse() with a real instance after a body parser', () => {
    it('exchanges a code and refuses a repeated parameter', async () => {
      const t = await testInstance();
      const app = new Koa();
      app.use(bodyParser());
      app.use(gatehouse(t.gatehouse));
      const base = await listen(app);
      await expectCodeExchangedAndRepeatRefused(t, (init) => fetch(`${base}/demo/oauth2/v1/token`, init));
    });
  });

  describe('behind middleware wrapping res.write/res.end', () => {
    it('answers whole behind express-session, compression and a hand-written wrapper (run on ctx.req/ctx.res)', async () => {
      const t = await testInstance();
      const wrappers = responseWrappers();
      const app = new Koa();
      app.use(
        (ctx, next) =>
          new Promise<void>((resolve, reject) =>
            wrappers.use(ctx.req, ctx.res, (error) => (error ? reject(error) : resolve(next()))),
          ),
      );
      app.use(gatehouse(t.gatehouse));
      app.use(operations(bodyShapes));
      await expectAnswersBehindResponseWrappers(await listen(app), wrappers.calls);
    });
  });

  describe('requireAuth()', () => {
    async function protectedApp() {
      const t = await testInstance();
      const app = new Koa<AuthState>();
      app.use(requireAuth(t.gatehouse, { schemes: ['bearer'] }));
      app.use(bodyParser());
      app.use((ctx) => {
        ctx.body = { sub: ctx.state.auth.sub, body: ctx.request.body };
      });
      return { t, base: await listen(app as unknown as Koa3) };
    }

    it('puts the caller on ctx.state.auth and leaves the body to later middleware', async () => {
      const { t, base } = await protectedApp();
      const { access_token } = await issueTokens(t);
      const response = await fetch(`${base}/api/things`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${access_token}`, 'Content-Type': 'application/json' },
        body: '{"limit":2}',
      });
      expect(await response.json()).toEqual({ sub: 'user-1', body: { limit: 2 } });
    });

    it('answers 401 with a Bearer challenge otherwise', async () => {
      const { base } = await protectedApp();
      const response = await fetch(`${base}/api/things`, {
        method: 'POST',
        headers: { Authorization: 'Bearer nope' },
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
    });
  });
});

describe('requests handed to host code (issue 42)', () => {
  it('are platform Requests in operations handlers and from toRequest: new Request(r), clone, fetch(r), bodies', async () => {
    const t = await testInstance();
    const { access_token } = await issueTokens(t);
    const probe = platformRequestProbe();
    const app = new Koa3();
    app.use(operations(probeOperations(t)));
    app.use(async (ctx) => {
      const response = await probe(toRequest(ctx));
      ctx.status = response.status;
      ctx.type = 'json';
      ctx.body = await response.text();
    });
    const base = await listen(app);
    await expectPlatformRequests(`${base}/demo/api/v1/probe`, `Bearer ${access_token}`);
    await expectPlatformRequests(`${base}/host/probe`);
    // Headers only (the body left to the host): a platform Request too.
    const headerOnly = new Koa3();
    headerOnly.use((ctx) => {
      const request = toRequest(ctx, { ignoreBody: true });
      ctx.body = {
        isRequest: request instanceof Request,
        copied: new Request(request).headers.get('x-probe'),
      };
    });
    const other = await listen(headerOnly);
    expect(await (await fetch(other, { headers: { 'X-Probe': 'h' } })).json()).toEqual({
      isRequest: true,
      copied: 'h',
    });
  });
});
