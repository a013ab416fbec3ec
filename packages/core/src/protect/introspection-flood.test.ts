/**
 * Issue 41, finding N1: anonymous callers sending made-up bearer tokens to an introspecting
 * resource server (`private_key_jwt`, one assertion per call) must not lock out the valid tokens.
 * A real instance and a real resource server, each on its own local HTTP server.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type IntrospectionOptions, resourceServer } from '@gatehousejs/core/protect';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API, API_KEY_CLIENT, introspectingIssuer, WORKER } from '../../test/introspecting-issuer';

type Issuer = Awaited<ReturnType<typeof introspectingIssuer>>;

const INTROSPECT = '/demo/oauth2/v1/introspect';
/** The header the test's "proxy" puts the caller's address in (read by the `clientAddress` option). */
const ADDRESS_HEADER = 'x-test-client-address';

/**
 * The API on 127.0.0.1: `GET /reports` needs `reports:read`; answers 200 `{ sub }` or the
 * resource server's refusal as it is.
 */
async function apiServer(issuer: Issuer, introspection: Partial<IntrospectionOptions> = {}) {
  const tokens = resourceServer({
    issuer: issuer.issuer,
    resource: API,
    introspection: {
      clientId: API_KEY_CLIENT,
      privateKey: issuer.apiKey,
      signedTokensOnly: false,
      ...introspection,
    },
    // What a host behind a trusted proxy does: the caller's address from the proxy's header.
    clientAddress: (request) => request.headers.get(ADDRESS_HEADER) ?? undefined,
  });
  const server: Server = createServer(async (request, response) => {
    const result = await tokens.authenticate(
      new Request(`${API}/reports`, { headers: request.headers as Record<string, string> }),
      'reports:read',
    );
    const answer = result.ok ? Response.json({ sub: result.caller.sub }) : result.response;
    response.writeHead(answer.status, Object.fromEntries(answer.headers));
    response.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    /** `GET /reports` with `token`, from `address`. */
    get: (token: string, address: string) =>
      fetch(`${origin}/reports`, {
        headers: { Authorization: `Bearer ${token}`, [ADDRESS_HEADER]: address },
      }),
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Runs `tasks` with at most `width` at once; their results in order. */
async function inBatches<T>(tasks: (() => Promise<T>)[], width: number): Promise<T[]> {
  const results: T[] = [];
  for (let start = 0; start < tasks.length; start += width)
    results.push(...(await Promise.all(tasks.slice(start, start + width).map((task) => task()))));
  return results;
}

let issuer: Issuer;
let api: Awaited<ReturnType<typeof apiServer>> | undefined;
beforeEach(async () => {
  issuer = await introspectingIssuer();
});
afterEach(async () => {
  await api?.stop();
  api = undefined;
  await issuer.stop();
});

describe('an introspecting resource server flooded with made-up tokens', () => {
  it('still accepts a valid token from a fresh network after 1,200 made-up tokens from 20 addresses', async () => {
    api = await apiServer(issuer);
    // 20 addresses in 5 different /24s, 64 made-up tokens each, taking turns (so that the calls
    // in flight together come from different networks, and each budget is met exactly): more
    // introspections reach the instance than the 1,000 assertions a normal client may present
    // per window.
    const addresses = Array.from({ length: 20 }, (_, i) => `198.51.${100 + (i % 5)}.${10 + i}`);
    const flood = Array.from({ length: 64 * addresses.length }, (_, i) => () => {
      const a = i % addresses.length;
      return api!.get(`made-up-${a}-${Math.floor(i / addresses.length)}`, addresses[a]!);
    });
    const statuses = await inBatches(
      flood.map((send) => async () => (await send()).status),
      16,
    );
    const valid = await api.get(await issuer.token(), '203.0.113.7');
    expect(valid.status).toBe(200);
    expect(await valid.json()).toEqual({ sub: WORKER.id });
    // Each made-up token is refused as invalid (401) until its network has had its share of
    // inactive answers; beyond it, 429 without asking the instance. Never a 503.
    expect(new Set(statuses)).toEqual(new Set([401, 429]));
    expect(statuses.filter((status) => status === 401).length).toBe(20 * 60);
    expect(issuer.count(INTROSPECT)).toBe(20 * 60 + 1);
  }, 60_000);
});
