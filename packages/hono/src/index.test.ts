import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendWebResponse, toWebRequest } from '@gatehousejs/core/node';
import { defineOperations } from '@gatehousejs/core/protect';
import { type AuthVariables, gatehouse, operations, requireAuth } from '@gatehousejs/hono';
import { serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { type Context, Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import {
  echoInstance,
  expectCodeExchangedAndRepeatRefused,
  expectPlatformRequests,
  expectTraceRefused,
  platformRequestProbe,
  probeOperations,
  resetProbe,
  sendResettable,
} from '../../core/test/adapter-kit';
import {
  basic,
  issueTokens,
  mintCode,
  PKCE_VERIFIER,
  REDIRECT_URI,
  testInstance,
} from '../../core/test/fixtures';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** Serves a Hono app with @hono/node-server on a free loopback port. */
async function listen(app: { fetch: (request: Request) => Response | Promise<Response> }): Promise<string> {
  const { server, port } = await new Promise<{ server: ReturnType<typeof serve>; port: number }>(
    (resolve) => {
      const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) =>
        resolve({ server, port: info.port }),
      );
    },
  );
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${port}`;
}

const echo = echoInstance;

describe('gatehouse() middleware (fetch runtime)', () => {
  it('answers the instance routes with the full URL and falls through for others', async () => {
    const app = new Hono();
    app.use(gatehouse(echo));
    app.get('/hello', (c) => c.text('host route'));
    const answer = await app.request('http://localhost/demo/oauth2/v1/token?x=1', {
      method: 'POST',
      body: 'a=b',
    });
    expect(await answer.json()).toMatchObject({
      url: 'http://localhost/demo/oauth2/v1/token?x=1',
      body: 'a=b',
      address: null,
    });
    expect(await (await app.request('http://localhost/hello')).text()).toBe('host route');
  });

  it('works under a path pattern and passes several Set-Cookie headers', async () => {
    const app = new Hono();
    app.use('/demo/*', gatehouse(echo));
    const response = await app.request('http://localhost/demo/x');
    expect(response.headers.getSetCookie()).toEqual(['one=1; Path=/; HttpOnly', 'two=2; Path=/; HttpOnly']);
  });
});

describe('gatehouse() middleware on @hono/node-server', () => {
  it('attaches the client address the host chooses, streams large bodies and answers HEAD without a body', async () => {
    const app = new Hono();
    app.use(gatehouse(echo, { clientAddress: (c) => getConnInfo(c).remote.address }));
    const base = await listen(app);
    const big = 'x'.repeat(2 * 1024 * 1024);
    const body = await (
      await fetch(`${base}/demo/x`, {
        method: 'POST',
        body: big,
        headers: { 'X-Forwarded-For': '203.0.113.9' },
      })
    ).json();
    expect({ address: body.address, length: body.body.length }).toEqual({
      address: '127.0.0.1',
      length: big.length,
    });
    const head = await fetch(`${base}/demo/x`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('exchanges a code against a real instance', async () => {
    const t = await testInstance();
    const app = new Hono();
    app.use(gatehouse(t.gatehouse));
    const base = await listen(app);
    const code = await mintCode(t);
    const response = await fetch(`${base}/demo/oauth2/v1/token`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: basic('demo-client', 'demo-secret'),
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT_URI,
        code_verifier: PKCE_VERIFIER,
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
  });
});

describe('on @hono/node-server: reset connections and methods new Request() refuses', () => {
  const clientAddress = (c: Context) => getConnInfo(c).remote.address;

  it('keeps the client address of a request whose client reset the connection', async () => {
    const probe = resetProbe();
    const app = new Hono();
    app.use(gatehouse(probe.instance, { clientAddress }));
    const reset = await sendResettable(await listen(app), 'POST', '/demo/auth/v1/token', {}, 'a=1');
    await probe.received;
    reset();
    expect(await probe.addressAfterReset).toBe('127.0.0.1');
  });

  it('answers TRACE on the instance and operations paths 405 with Allow, and leaves other paths to the host', async () => {
    const t = await testInstance();
    const app = new Hono();
    app.use(gatehouse(t.gatehouse, { clientAddress }));
    app.use(
      operations(
        defineOperations(t.gatehouse, {
          'POST /api/v1/things': { schemes: ['bearer'], handler: () => Response.json({}) },
        }),
        { clientAddress },
      ),
    );
    app.notFound((c) => c.text('host', 404));
    const base = await listen(app);
    await expectTraceRefused(
      base,
      [
        ['/demo/oauth2/v1/token', 'POST'],
        ['/.well-known/oauth-authorization-server/demo', 'GET, HEAD'],
        ['/demo/api/v1/things', 'POST'],
      ],
      { path: '/elsewhere', status: 404, body: 'host' },
    );
  });
});

describe('gatehouse() after a middleware that read the body', () => {
  const tokenRequest = (body: string) =>
    new Request('http://localhost/demo/oauth2/v1/token', {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: basic('demo-client', 'demo-secret'),
      },
      body,
    });

  it('gets the bytes Hono kept, so the grant works and repeated parameters are still refused', async () => {
    const t = await testInstance();
    const app = new Hono();
    app.use(async (c, next) => {
      await c.req.parseBody();
      await next();
    });
    app.use(gatehouse(t.gatehouse));
    await expectCodeExchangedAndRepeatRefused(t, async (init) =>
      app.request('http://localhost/demo/oauth2/v1/token', init),
    );
  });

  it('answers 400, never a 5xx, when the body was consumed outside Hono', async () => {
    const t = await testInstance();
    const app = new Hono();
    app.use(async (c, next) => {
      await c.req.raw.text();
      await next();
    });
    app.use(gatehouse(t.gatehouse));
    const response = await app.request(tokenRequest('grant_type=authorization_code&code=x'));
    expect(response.status).toBe(400);
    expect((await response.json()).error).toBe('invalid_request');
  });
});

describe('requireAuth()', () => {
  it("sets c.get('auth') for a valid token and answers 401 with a challenge otherwise", async () => {
    const t = await testInstance();
    const app = new Hono<{ Variables: AuthVariables }>();
    app.post('/api/things', requireAuth(t.gatehouse, { schemes: ['bearer'] }), async (c) =>
      c.json({ sub: c.get('auth').sub, body: await c.req.json() }),
    );
    const { access_token } = await issueTokens(t);
    const ok = await app.request('http://localhost/api/things', {
      method: 'POST',
      headers: { Authorization: `Bearer ${access_token}`, 'Content-Type': 'application/json' },
      body: '{"limit":1}',
    });
    expect(await ok.json()).toEqual({ sub: 'user-1', body: { limit: 1 } });
    const refused = await app.request('http://localhost/api/things', { method: 'POST' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });
});

describe('requireAuth() with a handler', () => {
  it('runs the handler with c.get(auth) for a valid token, refuses others, and gives the same answers as the middleware', async () => {
    const t = await testInstance();
    const app = new Hono<{ Variables: AuthVariables }>();
    app.get(
      '/api/me',
      requireAuth(t.gatehouse, { schemes: ['bearer'], scope: ['read'] }, (c) =>
        c.json({ sub: c.get('auth').sub, via: 'handler' }),
      ),
    );
    app.get('/api/me-middleware', requireAuth(t.gatehouse, { schemes: ['bearer'], scope: ['read'] }), (c) =>
      c.json({ sub: c.get('auth').sub }),
    );
    const { access_token } = await issueTokens(t);
    // Twice: the first verifies the token, the second finds it verified (the synchronous path).
    for (let i = 0; i < 2; i++) {
      const ok = await app.request('http://localhost/api/me', {
        headers: { Authorization: `Bearer ${access_token}` },
      });
      expect(ok.status).toBe(200);
      expect(await ok.json()).toEqual({ sub: 'user-1', via: 'handler' });
    }
    for (const path of ['/api/me', '/api/me-middleware']) {
      const missing = await app.request(`http://localhost${path}`);
      expect(missing.status).toBe(401);
      expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer /);
      const forged = await app.request(`http://localhost${path}`, {
        headers: { Authorization: `Bearer ${access_token.slice(0, -4)}AAAA` },
      });
      expect(forged.status).toBe(401);
      expect(forged.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    }
    const admin = new Hono<{ Variables: AuthVariables }>();
    admin.get(
      '/admin',
      requireAuth(t.gatehouse, { schemes: ['bearer'], scope: ['admin'] }, (c) => c.text('no')),
    );
    const short = await admin.request('http://localhost/admin', {
      headers: { Authorization: `Bearer ${access_token}` },
    });
    expect(short.status).toBe(403);
    expect(short.headers.get('www-authenticate')).toMatch(/error="insufficient_scope"/);
  });
});

describe('requests handed to host code (issue 42)', () => {
  // Served through the core's Node bridge (`toWebRequest`, a platform `Request`) rather than
  // @hono/node-server, whose own light `c.req.raw` is refused by `fetch(r)` on Node 20 whatever
  // Gatehouse does: this checks that operations and requireAuth hand the host's request on as a
  // platform Request (as Hono on Bun, Deno and Workers gives them).
  async function listenBridged(app: Hono<{ Variables: AuthVariables }>): Promise<string> {
    const server = createServer(async (req, res) => {
      await sendWebResponse(res, await app.fetch(toWebRequest(req, { response: res })));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('are platform Requests in operations handlers and behind requireAuth: new Request(r), clone, fetch(r), bodies', async () => {
    const t = await testInstance();
    const { access_token } = await issueTokens(t);
    const probe = platformRequestProbe();
    const app = new Hono<{ Variables: AuthVariables }>();
    app.use(operations(probeOperations(t)));
    app.on(
      ['GET', 'POST', 'PUT'],
      '/host/probe',
      requireAuth(t.gatehouse, { schemes: ['bearer'] }, (c) => probe(c.req.raw)),
    );
    const base = await listenBridged(app);
    await expectPlatformRequests(`${base}/demo/api/v1/probe`, `Bearer ${access_token}`);
    await expectPlatformRequests(`${base}/host/probe`, `Bearer ${access_token}`);
  });
});
