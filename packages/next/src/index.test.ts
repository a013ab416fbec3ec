import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGatehouseHost, memoryClientStore, memoryUserStore } from '@gatehousejs/core';
import { clientAddressOf } from '@gatehousejs/core/adapter';
import { sendWebResponse, toWebRequest } from '@gatehousejs/core/node';
import { handlers, operations, withAuth } from '@gatehousejs/next';
import { describe, expect, it } from 'vitest';
import { expectPlatformRequests, platformRequestProbe, probeOperations } from '../../core/test/adapter-kit';
import {
  basic,
  ISSUER,
  issueTokens,
  mintCode,
  PKCE_VERIFIER,
  REDIRECT_URI,
  testClients,
  testInstance,
  testKey,
} from '../../core/test/fixtures';

describe('handlers()', () => {
  it('serves a createGatehouseHost from one catch-all route (app/[instance]/[...path]/route.ts)', async () => {
    const host = createGatehouseHost({
      origin: 'http://localhost:3000',
      resolve: async (name) =>
        name === 'demo' || name === 'acme'
          ? {
              keys: [await testKey()],
              clients: memoryClientStore(await testClients()),
              users: memoryUserStore([]),
            }
          : null,
    });
    const { GET } = handlers(host);
    for (const name of ['demo', 'acme']) {
      const metadata = await GET(
        new Request(`http://localhost:3000/${name}/.well-known/oauth-authorization-server`),
        {},
      );
      expect((await metadata.json()).issuer).toBe(`http://localhost:3000/${name}`);
    }
    expect((await GET(new Request('http://localhost:3000/other/oauth2/v1/keys'), {})).status).toBe(404);
  });

  it('answers the token endpoint through the route methods', async () => {
    const t = await testInstance();
    const { POST, GET } = handlers(t.gatehouse);
    const code = await mintCode(t);
    const response = await POST(
      new Request(`${ISSUER}/oauth2/v1/token`, {
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
      }),
      {},
    );
    expect(response.status).toBe(200);
    const metadata = await GET(new Request(`${ISSUER}/.well-known/oauth-authorization-server`), {});
    expect((await metadata.json()).issuer).toBe(ISSUER);
  });

  it('attaches the client address only when the host says how to find it', async () => {
    const seen: (string | undefined)[] = [];
    const probe = {
      fetch: async (request: Request) => {
        seen.push(clientAddressOf(request));
        return new Response(null, { status: 204 });
      },
    };
    await handlers(probe).GET(
      new Request('http://localhost/demo/x', { headers: { 'X-Forwarded-For': '198.51.100.1' } }),
      {},
    );
    await handlers(probe, { clientAddress: () => '203.0.113.7' }).GET(
      new Request('http://localhost/demo/x'),
      {},
    );
    expect(seen).toEqual([undefined, '203.0.113.7']);
  });
});

describe('withAuth()', () => {
  it('passes the caller to the handler, or returns the 401 challenge', async () => {
    const t = await testInstance();
    const route = withAuth<{ params: Promise<object> }>(
      t.gatehouse,
      async (_request, { auth, params }) => Response.json({ sub: auth.sub, params: await params }),
      { schemes: ['bearer'] },
    );
    const { access_token } = await issueTokens(t);
    const context = { params: Promise.resolve({}) };
    const ok = await route(
      new Request(`${ISSUER}/api/v1/things`, { headers: { Authorization: `Bearer ${access_token}` } }),
      context,
    );
    expect(await ok.json()).toEqual({ sub: 'user-1', params: {} });
    const refused = await withAuth(
      async () => t.gatehouse,
      () => new Response('never'),
      { schemes: ['bearer'] },
    )(new Request(`${ISSUER}/api/v1/things`), context);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });
});

describe('edge compatibility', () => {
  it('imports no Node.js built-in', () => {
    const source = readFileSync(new URL('./index.ts', import.meta.url), 'utf8');
    expect(source).not.toMatch(/from ['"](node:|fs|path|crypto|http)/);
  });
});

describe('requests handed to host code (issue 42)', () => {
  it('are platform Requests behind withAuth and in operations handlers: new Request(r), clone, fetch(r), bodies', async () => {
    const t = await testInstance();
    const { access_token } = await issueTokens(t);
    const probe = platformRequestProbe();
    const routes = operations(probeOperations(t));
    const protectedRoute = withAuth(t.gatehouse, (request) => probe(request), { schemes: ['bearer'] });
    // Next hands route handlers a platform Request; here the core's Node bridge makes it.
    const server = createServer(async (req, res) => {
      const request = toWebRequest(req, { response: res });
      const route = req.url?.startsWith('/host/') ? protectedRoute : routes[request.method as 'GET'];
      await sendWebResponse(res, await route(request, { params: Promise.resolve({}) }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await expectPlatformRequests(`${base}/demo/api/v1/probe`, `Bearer ${access_token}`);
      await expectPlatformRequests(`${base}/host/probe`, `Bearer ${access_token}`);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
