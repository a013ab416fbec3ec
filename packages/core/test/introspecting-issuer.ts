import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createGatehouse,
  type Gatehouse,
  type GatehouseOptions,
  generateKeys,
  hashClientSecret,
  memoryClientStore,
  memoryUserStore,
} from '@gatehousejs/core';
import { basic, testKey } from './fixtures';

/** The API the tokens are for (RFC 8707 resource), and the clients of {@link introspectingIssuer}. */
export const API = 'http://api.example.test/api';
export const WORKER = { id: 'reports-worker', secret: 'reports-worker-secret' };
export const API_CLIENT = { id: 'orders-api', secret: 'orders-api-secret' };
/** The API's client authenticating with `private_key_jwt`: its private key is `issuer.apiKey`. */
export const API_KEY_CLIENT = 'orders-api-jwt';

/**
 * A Gatehouse instance served over real HTTP on 127.0.0.1, for resource servers that introspect:
 * `reports-worker` gets tokens (client credentials), `orders-api` is the API's confidential client,
 * allowed to introspect the tokens for {@link API}. Counts the requests per path; `stop()` closes
 * the port (an introspection endpoint that is down). The instance reads the clock through
 * `Date.now()` at each call, so a test faking `Date` moves both sides. `overrides` replace options
 * of the instance (`keyRotation`, `accessTokenTtl`).
 */
export async function introspectingIssuer(overrides: Partial<GatehouseOptions> = {}) {
  const hits = new Map<string, number>();
  let gatehouse: Gatehouse | undefined;
  const server: Server = createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const answer = await gatehouse!.fetch(
      new Request(origin + (request.url ?? '/'), {
        method: request.method ?? 'GET',
        headers: request.headers as Record<string, string>,
        ...(body.length > 0 ? { body } : {}),
      }),
    );
    response.writeHead(answer.status, Object.fromEntries(answer.headers));
    response.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const apiKey = await generateKeys('ES256');
  const { d: _private, ...apiPublicKey } = apiKey;
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = `${origin}/demo`;
  gatehouse = createGatehouse({
    issuer,
    keys: [await testKey()],
    resources: [API],
    accessTokenTtl: 300,
    now: () => Date.now(),
    logger: { warn() {}, error() {} },
    clients: memoryClientStore([
      {
        id: WORKER.id,
        type: 'confidential',
        secretHash: await hashClientSecret(WORKER.secret),
        grantTypes: ['client_credentials'],
        scopes: ['reports:read'],
        redirectUris: [],
      },
      {
        id: API_CLIENT.id,
        type: 'confidential',
        secretHash: await hashClientSecret(API_CLIENT.secret),
        grantTypes: [],
        introspects: [API],
        redirectUris: [],
      },
      {
        id: API_KEY_CLIENT,
        type: 'confidential',
        tokenEndpointAuthMethod: 'private_key_jwt',
        jwks: { keys: [apiPublicKey] },
        grantTypes: [],
        introspects: [API],
        redirectUris: [],
      },
    ]),
    users: memoryUserStore([]),
    ...overrides,
  });
  await gatehouse.ready();

  const form = async (
    path: string,
    client: { id: string; secret: string },
    fields: Record<string, string>,
    headers: Record<string, string> = {},
  ) =>
    fetch(issuer + path, {
      method: 'POST',
      headers: {
        ...headers,
        Authorization: basic(client.id, client.secret),
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams(fields),
    });

  return {
    issuer,
    /** The instance (its `keys`, to rotate and revoke). */
    gatehouse,
    /** The private key of {@link API_KEY_CLIENT}. */
    apiKey,
    introspectionEndpoint: `${issuer}/oauth2/v1/introspect`,
    /** Requests the server answered at `path` (below the origin). */
    count: (path: string) => hits.get(path) ?? 0,
    /**
     * An access token of `reports-worker`, for `resource` (default {@link API}; `null`: none
     * asked), bound to a DPoP key when `headers` carry a proof.
     */
    async token(resource: string | null = API, headers: Record<string, string> = {}): Promise<string> {
      const response = await form(
        '/oauth2/v1/token',
        WORKER,
        {
          grant_type: 'client_credentials',
          scope: 'reports:read',
          ...(resource === null ? {} : { resource }),
        },
        headers,
      );
      if (response.status !== 200) throw new Error(`token: ${response.status} ${await response.text()}`);
      return ((await response.json()) as { access_token: string }).access_token;
    },
    /** Revokes a token of `reports-worker` (RFC 7009). */
    async revoke(token: string): Promise<void> {
      const response = await form('/oauth2/v1/revoke', WORKER, { token });
      if (response.status !== 200) throw new Error(`revoke: ${response.status}`);
    },
    async stop(): Promise<void> {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
