/**
 * A DPoP proof's `htu` (RFC 9449 §4.3 item 9) is checked against the server's configured public
 * origin, never the host a request names: over real HTTP (node:http and the Node bridge, which
 * builds the request URL from the `Host` header, as a host trusting no proxy does), a proof made
 * for another server at the same path is refused at the token endpoint, userinfo, a route of the
 * instance and a `resourceServer()`, even when the request forges that server's `Host`.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigurationError } from '@gatehousejs/core';
import { sendWebResponse, toWebRequest } from '@gatehousejs/core/node';
import { defineOperations, resourceServer } from '@gatehousejs/core/protect';
import { afterEach, describe, expect, it } from 'vitest';
import { ath, type DpopTestKey, dpopKey, dpopProof } from '../../test/dpop';
import {
  basic,
  ISSUER,
  mintCode,
  PKCE_VERIFIER,
  REDIRECT_URI,
  type TestInstance,
  type TestOptions,
  testClock,
  testInstance,
} from '../../test/fixtures';

/** The instance's public origin (its issuer's), and a server a proof may have been made for. */
const PUBLIC = new URL(ISSUER).origin;
const ELSEWHERE = 'http://elsewhere.example';
const MCP = `${PUBLIC}/mcp`;
const TOKEN_PATH = '/demo/oauth2/v1/token';
const USERINFO_PATH = '/demo/oauth2/v1/userinfo';
const ROUTE_PATH = '/demo/api/v1/tickets';

/**
 * A test instance on a clock that stands at the real time (the resource server reads `Date.now`),
 * its codes minted on that clock.
 */
async function instance(options: TestOptions = {}): Promise<TestInstance> {
  const clock = testClock(Date.now());
  return { ...(await testInstance({ now: clock.now, ...options })), clock };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/**
 * The instance, one route of it (`defineOperations`) and a `resourceServer()` for {@link MCP},
 * behind one node:http server on a loopback port: the request URL is built from `Host`.
 */
async function serve(t: TestInstance): Promise<number> {
  const operations = defineOperations(t.gatehouse, {
    'GET /api/v1/tickets': { schemes: ['bearer'], handler: (_request, caller) => Response.json(caller) },
  });
  const mcp = resourceServer({
    issuer: ISSUER,
    resource: MCP,
    fetch: (url, init) => t.gatehouse.fetch(new Request(url, init)),
  });
  const server = createServer(async (req, res) => {
    const request = toWebRequest(req, { response: res });
    let response: Response;
    if (new URL(request.url).pathname === '/mcp') {
      const result = await mcp.authenticate(request, 'read');
      response = result.ok ? Response.json(result.caller) : result.response;
    } else response = (await operations(request)) ?? (await t.gatehouse.fetch(request));
    await sendWebResponse(res, response);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

interface Answer {
  readonly status: number;
  readonly challenge: string | undefined;
  readonly body: Record<string, unknown>;
}

/** Sends a request with node:http, whose `Host` header (unlike fetch's) may be anything. */
function send(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          challenge: response.headers['www-authenticate'],
          body: text === '' ? {} : JSON.parse(text),
        }),
      );
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** The host part (`host[:port]`) of an origin, as a `Host` header names it. */
const hostOf = (origin: string) => new URL(origin).host;

/** A code redemption of demo-client with a proof for `htu`, sent with `host`. */
async function redeem(
  t: TestInstance,
  port: number,
  key: DpopTestKey,
  htu: string,
  host: string,
  audience?: string,
) {
  const code = await mintCode(t, {
    scope: 'openid profile read',
    ...(audience === undefined ? {} : { audience: [audience] }),
  });
  return send(
    port,
    'POST',
    TOKEN_PATH,
    {
      host,
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basic('demo-client', 'demo-secret'),
      dpop: await dpopProof(key, 'POST', htu, Date.now()),
    },
    new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: PKCE_VERIFIER,
    }).toString(),
  );
}

/** A bound access token of demo-client for `key` (for the instance, or `audience`). */
async function boundToken(t: TestInstance, port: number, key: DpopTestKey, audience?: string) {
  const answer = await redeem(t, port, key, `${PUBLIC}${TOKEN_PATH}`, hostOf(PUBLIC), audience);
  expect(answer.body.token_type).toBe('DPoP');
  return answer.body.access_token as string;
}

/** A GET of `path` with the DPoP scheme and a proof for `htu`, sent with `host`. */
async function dpopGet(
  port: number,
  path: string,
  token: string,
  key: DpopTestKey,
  htu: string,
  host: string,
) {
  return send(port, 'GET', path, {
    host,
    authorization: `DPoP ${token}`,
    dpop: await dpopProof(key, 'GET', htu, Date.now(), { ath: await ath(token) }),
  });
}

describe("a DPoP proof's htu is checked against the configured origin, not the Host header (RFC 9449 §4.3)", () => {
  it('at the token endpoint: a proof for another server is 400 invalid_dpop_proof, even with its Host', async () => {
    const t = await instance();
    const port = await serve(t);
    const key = await dpopKey();
    const forged = await redeem(t, port, key, `${ELSEWHERE}${TOKEN_PATH}`, hostOf(ELSEWHERE));
    expect(forged.status).toBe(400);
    expect(forged.body.error).toBe('invalid_dpop_proof');
    expect(forged.body.access_token).toBeUndefined();
    // The address the request really came to is no public origin either.
    const direct = await redeem(t, port, key, `http://127.0.0.1:${port}${TOKEN_PATH}`, `127.0.0.1:${port}`);
    expect(direct.body.error).toBe('invalid_dpop_proof');
    // A proof for the issuer's origin works, whatever Host the request came with.
    for (const host of [hostOf(PUBLIC), `127.0.0.1:${port}`, hostOf(ELSEWHERE)]) {
      const accepted = await redeem(t, port, key, `${PUBLIC}${TOKEN_PATH}`, host);
      expect(accepted.status).toBe(200);
      expect(accepted.body.token_type).toBe('DPoP');
    }
  });

  for (const [where, path] of [
    ['userinfo', USERINFO_PATH],
    ['a route of the instance (defineOperations)', ROUTE_PATH],
  ] as const) {
    it(`at ${where}: a proof for another server is 401 invalid_dpop_proof with a DPoP challenge`, async () => {
      const t = await instance();
      const port = await serve(t);
      const key = await dpopKey();
      const token = await boundToken(t, port, key);
      const forged = await dpopGet(port, path, token, key, `${ELSEWHERE}${path}`, hostOf(ELSEWHERE));
      expect(forged.status).toBe(401);
      expect(forged.challenge).toMatch(/^DPoP realm="[^"]+", error="invalid_dpop_proof"/);
      const accepted = await dpopGet(port, path, token, key, `${PUBLIC}${path}`, hostOf(ELSEWHERE));
      expect(accepted.status).toBe(200);
      expect(accepted.body.sub).toBe('user-1');
    });
  }

  it('at gatehouse.authenticate with a declared resource on another origin: that origin is accepted too', async () => {
    const api = 'https://api.example.test/v1';
    const t = await instance({ resources: [api] });
    const port = await serve(t);
    const key = await dpopKey();
    const token = await boundToken(t, port, key, api);
    const authenticate = async (htu: string) =>
      t.gatehouse.authenticate(
        new Request(`${ELSEWHERE}/v1/orders`, {
          headers: {
            authorization: `DPoP ${token}`,
            dpop: await dpopProof(key, 'GET', htu, Date.now(), { ath: await ath(token) }),
          },
        }),
        { schemes: ['bearer'], resource: api },
      );
    expect((await authenticate('https://api.example.test/v1/orders')).ok).toBe(true);
    expect((await authenticate(`${PUBLIC}/v1/orders`)).ok).toBe(true);
    const refused = await authenticate(`${ELSEWHERE}/v1/orders`);
    expect(!refused.ok && refused.response.headers.get('www-authenticate')).toMatch(
      /error="invalid_dpop_proof"/,
    );
  });

  it('at resourceServer(): a proof for another server is 401 invalid_dpop_proof; one for the resource works', async () => {
    const t = await instance({ resources: [MCP] });
    const port = await serve(t);
    const key = await dpopKey();
    const token = await boundToken(t, port, key, MCP);
    const forged = await dpopGet(port, '/mcp', token, key, `${ELSEWHERE}/mcp`, hostOf(ELSEWHERE));
    expect(forged.status).toBe(401);
    expect(forged.challenge).toMatch(/^DPoP realm="[^"]+", error="invalid_dpop_proof"/);
    const direct = await dpopGet(
      port,
      '/mcp',
      token,
      key,
      `http://127.0.0.1:${port}/mcp`,
      `127.0.0.1:${port}`,
    );
    expect(direct.status).toBe(401);
    const accepted = await dpopGet(port, '/mcp', token, key, MCP, hostOf(ELSEWHERE));
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ sub: 'user-1', dpopJkt: key.jkt });
  });

  it('resourceServer() takes dpop.origin, and refuses to start without an origin for a resource that is no URL', async () => {
    const t = await instance({ resources: [MCP] });
    const port = await serve(t);
    const key = await dpopKey();
    const token = await boundToken(t, port, key, MCP);
    const behindProxy = resourceServer({
      issuer: ISSUER,
      resource: MCP,
      dpop: { origin: 'https://public.example' },
      fetch: (url, init) => t.gatehouse.fetch(new Request(url, init)),
    });
    const at = async (htu: string) =>
      behindProxy.authenticate(
        new Request(`http://10.0.0.7:8080/mcp`, {
          headers: {
            authorization: `DPoP ${token}`,
            dpop: await dpopProof(key, 'GET', htu, Date.now(), { ath: await ath(token) }),
          },
        }),
        'read',
      );
    expect((await at('https://public.example/mcp')).ok).toBe(true);
    expect((await at(MCP)).ok).toBe(false);
    expect((await at('http://10.0.0.7:8080/mcp')).ok).toBe(false);

    const refused = (options: Partial<Parameters<typeof resourceServer>[0]>) => {
      try {
        resourceServer({ issuer: ISSUER, resource: MCP, ...options });
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigurationError);
        return { option: (error as ConfigurationError).option, code: (error as ConfigurationError).code };
      }
      throw new Error('accepted');
    };
    expect(refused({ resource: 'urn:example:orders' })).toEqual({
      option: 'dpop.origin',
      code: 'ERR_CONFIG_MISSING_OPTION',
    });
    for (const origin of [
      'https://public.example/api',
      'ftp://public.example',
      'public.example',
      'https://u:p@x.example',
    ])
      expect(refused({ dpop: { origin } })).toEqual({
        option: 'dpop.origin',
        code: 'ERR_CONFIG_INVALID_OPTION',
      });
    expect(() =>
      resourceServer({
        issuer: ISSUER,
        resource: 'urn:example:orders',
        dpop: { origin: 'https://orders.example/' },
      }),
    ).not.toThrow();
  });
});
