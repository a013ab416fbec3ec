/**
 * The servers the plans run against in this package's tests, each in this process on a free port:
 * the Gatehouse demo instance (`createDemo`, the seeds of `pnpm start`) behind `node:http`, and
 * oidc-provider configured as the OpenID Foundation's own certification setup configures it
 * (`certification/oidc/configuration.js` of its repository), with the configs that drive them.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { sendWebResponse, toWebRequest } from '@gatehousejs/core/node';
import { createDemo, DEMO, type DemoOptions, type DemoStoreEngine, storageFromEnv } from '@gatehousejs/demo';
import type { ConformanceConfig } from '../src/index.js';

export const CHROMIUM = '/usr/bin/chromium';

/** Why the browser plans cannot run here (no Chromium), or `undefined`. */
export function chromiumSkipReason(): string | undefined {
  return existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is not installed (CI installs it with apt-get)`;
}

/** A port that was free a moment ago (the issuer names the port, so port 0 cannot be used). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** A server under test and the config that drives the plans against it. */
export interface TestServer {
  readonly issuer: string;
  readonly origin: string;
  readonly config: ConformanceConfig;
  close(): Promise<void>;
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** How the tests drive both servers' pages; the code reuse wait is shortened to keep CI bounded. */
const COMMON: ConformanceConfig = {
  code_reuse_wait_seconds: 3,
  browser_timeout_ms: 10_000,
  chromium: CHROMIUM,
};

/** The config of the Gatehouse demo: its seeded clients, user and page selectors. */
export function gatehouseConfig(origin: string, issuer: string): ConformanceConfig {
  const redirect_uri = `${origin}/callback`;
  const post_logout_redirect_uri = `${origin}/logged-out`;
  return {
    ...COMMON,
    issuer,
    client: {
      client_id: DEMO.client.id,
      client_secret: DEMO.client.secret,
      redirect_uri,
      post_logout_redirect_uri,
    },
    client2: {
      client_id: DEMO.thirdPartyClient.id,
      client_secret: DEMO.thirdPartyClient.secret,
      redirect_uri,
      post_logout_redirect_uri,
    },
    client_secret_post: {
      client_id: DEMO.postClient.id,
      client_secret: DEMO.postClient.secret,
      redirect_uri,
      post_logout_redirect_uri,
    },
    user: { username: DEMO.user.username, password: DEMO.user.password },
    browser: {
      login: {
        username: 'input[name="username"]',
        password: 'input[name="password"]',
        submit: 'button[type="submit"]',
      },
      consent: { approve: 'button[value="allow"]', deny: 'button[value="deny"]' },
      logout: { confirm: 'form[action$="/oauth2/v1/end-session"] button[type="submit"]' },
    },
  };
}

/** Starts the Gatehouse demo instance (`createDemo`: issuer `{origin}/demo`) in this process. */
export async function startGatehouse(overrides?: DemoOptions['overrides']): Promise<TestServer> {
  return startGatehouseAt(await freePort(), overrides);
}

/**
 * Why the demo cannot run on `engine` here (`REDIS_URL` / `DATABASE_URL` unset), or `undefined`.
 */
export function engineSkipReason(engine: Exclude<DemoStoreEngine, 'memory'>): string | undefined {
  const variable = engine === 'redis' ? 'REDIS_URL' : 'DATABASE_URL';
  return process.env[variable] ? undefined : `${variable} is not set`;
}

/**
 * The demo instance on Redis or PostgreSQL (`storageFromEnv`, as `GATEHOUSE_STORE` picks it for
 * `pnpm start`), in a namespace of its own; the connections close with the server.
 */
export async function startGatehouseOn(engine: Exclude<DemoStoreEngine, 'memory'>): Promise<TestServer> {
  const storage = await storageFromEnv({
    ...process.env,
    GATEHOUSE_STORE: engine,
    GATEHOUSE_STORE_NAMESPACE: `conformance_${process.pid}_${Date.now().toString(36)}`,
  });
  const server = await startGatehouseAt(await freePort(), { storage });
  return {
    ...server,
    close: async () => {
      await server.close();
      await storage.close();
    },
  };
}

/** oidc-provider's clients for the plans (static registration, as the Foundation's plan configs name them). */
function providerClients(origin: string) {
  const common = {
    redirect_uris: [`${origin}/callback`],
    post_logout_redirect_uris: [`${origin}/logged-out`],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  };
  return [
    {
      ...common,
      client_id: 'first-openid-client',
      client_secret: 'first-openid-client-secret-0123456789abcdef',
    },
    {
      ...common,
      client_id: 'second-openid-client',
      client_secret: 'second-openid-client-secret-0123456789abcdef',
    },
    {
      ...common,
      client_id: 'post-openid-client',
      client_secret: 'post-openid-client-secret-0123456789abcdef',
      token_endpoint_auth_method: 'client_secret_post',
    },
  ];
}

/**
 * Starts oidc-provider with the OpenID Foundation's certification configuration of its repository
 * (`certification/oidc/configuration.js`: the same claims, features, response types, acr values,
 * refresh token policy and optional PKCE), except what needs its example app: the interactions are
 * the provider's built-in ones (`devInteractions`), whose pages the config's selectors name, and
 * accounts carry the example account's claims.
 */
export async function startOidcProvider(): Promise<TestServer> {
  const port = await freePort();
  const origin = `http://localhost:${port}`;
  const { default: Provider } = await import('oidc-provider');
  const accountClaims = (sub: string) => ({
    sub,
    address: {
      country: '000',
      formatted: '000',
      locality: '000',
      postal_code: '000',
      region: '000',
      street_address: '000',
    },
    birthdate: '1987-10-16',
    email: 'johndoe@example.com',
    email_verified: false,
    family_name: 'Doe',
    gender: 'male',
    given_name: 'John',
    locale: 'en-US',
    middle_name: 'Middle',
    name: 'John Doe',
    nickname: 'Johny',
    phone_number: '+49 000 000000',
    phone_number_verified: false,
    picture: 'http://lorempixel.com/400/200/',
    preferred_username: 'johnny',
    profile: 'https://johnswebsite.com',
    updated_at: 1454704946,
    website: 'http://example.com',
    zoneinfo: 'Europe/Berlin',
  });
  const provider = new Provider(origin, {
    clients: providerClients(origin),
    acrValues: ['urn:mace:incommon:iap:bronze'],
    claims: {
      address: ['address'],
      email: ['email', 'email_verified'],
      phone: ['phone_number', 'phone_number_verified'],
      profile: [
        'birthdate',
        'family_name',
        'gender',
        'given_name',
        'locale',
        'middle_name',
        'name',
        'nickname',
        'picture',
        'preferred_username',
        'profile',
        'updated_at',
        'website',
        'zoneinfo',
      ],
    },
    features: {
      devInteractions: { enabled: true },
      claimsParameter: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      requestObjects: { enabled: true },
      pushedAuthorizationRequests: { enabled: true },
      rpInitiatedLogout: { enabled: true },
    },
    responseTypes: [
      'code id_token token',
      'code id_token',
      'code token',
      'code',
      'id_token token',
      'id_token',
      'none',
    ],
    subjectTypes: ['public'],
    clientAuthMethods: [
      'none',
      'client_secret_basic',
      'client_secret_jwt',
      'client_secret_post',
      'private_key_jwt',
    ],
    async issueRefreshToken(
      _ctx: unknown,
      client: { grantTypeAllowed(grant: string): boolean },
      code: { scopes: Set<string> },
    ) {
      return client.grantTypeAllowed('refresh_token') && code.scopes.has('offline_access');
    },
    pkce: { required: () => false },
    async findAccount(_ctx: unknown, id: string) {
      return { accountId: id, claims: async () => accountClaims(id) };
    },
  } as never);
  const server = createServer(provider.callback());
  await listen(server, port);
  const redirect_uri = `${origin}/callback`;
  const post_logout_redirect_uri = `${origin}/logged-out`;
  const [first, second, post] = providerClients(origin);
  return {
    issuer: origin,
    origin,
    config: {
      ...COMMON,
      issuer: origin,
      client: {
        client_id: first!.client_id,
        client_secret: first!.client_secret,
        redirect_uri,
        post_logout_redirect_uri,
      },
      client2: {
        client_id: second!.client_id,
        client_secret: second!.client_secret,
        redirect_uri,
        post_logout_redirect_uri,
      },
      client_secret_post: {
        client_id: post!.client_id,
        client_secret: post!.client_secret,
        redirect_uri,
        post_logout_redirect_uri,
      },
      // devInteractions accepts any login and password (the Foundation's plan types foo / bar).
      user: { username: 'foo', password: 'bar' },
      login_hint: 'bob@example.com',
      browser: {
        login: {
          username: 'input[name="login"]',
          password: 'input[name="password"]',
          submit: 'button.login-submit',
        },
        consent: { approve: 'button.login-submit' },
        logout: { confirm: 'button[autofocus]' },
      },
    },
    close: () => closeServer(server),
  };
}

/** A private_key_jwt client of the FAPI 2.0 instance: its private JWK (the tool's) and public one (the server's). */
async function jwtClient(
  id: string,
): Promise<{ privateJwk: Record<string, unknown>; publicJwk: Record<string, unknown> }> {
  const { exportJWK, generateKeyPair } = await import('jose');
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const kid = `${id}-key`;
  return {
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg: 'ES256' },
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' },
  };
}

/**
 * A Gatehouse instance under the FAPI 2.0 Security Profile (`securityProfile: 'fapi2'`): the demo's
 * options with an ES256 signing key only, two `private_key_jwt` clients that are not first-party
 * (so the user sees a consent page to deny), short code and `request_uri` lifetimes so that the
 * expiry modules wait seconds, not a minute.
 */
export async function startGatehouseFapi2(breakage?: Breakage): Promise<TestServer> {
  const { generateKeys, memoryClientStore } = await import('@gatehousejs/core');
  const port = await freePort();
  const origin = `http://localhost:${port}`;
  const redirectUri = `${origin}/callback`;
  const [one, two] = await Promise.all([jwtClient('fapi-one'), jwtClient('fapi-two')]);
  const client = (id: string, publicJwk: Record<string, unknown>) => ({
    id,
    name: `FAPI 2.0 client ${id}`,
    type: 'confidential' as const,
    tokenEndpointAuthMethod: 'private_key_jwt' as const,
    jwks: { keys: [publicJwk as never] },
    grantTypes: ['authorization_code', 'refresh_token'],
    redirectUris: [redirectUri],
  });
  const server = await startGatehouseAt(
    port,
    {
      securityProfile: 'fapi2',
      keys: [await generateKeys('ES256')],
      clients: memoryClientStore([client('fapi-one', one.publicJwk), client('fapi-two', two.publicJwk)]),
      authorizationCodeTtl: 5,
      pushedAuthorizationRequests: { required: true, requestUriTtl: 10 },
    },
    false,
    breakage,
  );
  const base = gatehouseConfig(server.origin, server.issuer);
  return {
    ...server,
    config: {
      ...base,
      fapi_client: {
        client_id: 'fapi-one',
        jwks: { keys: [one.privateJwk] },
        redirect_uri: redirectUri,
        scope: 'profile',
      },
      fapi_client2: {
        client_id: 'fapi-two',
        jwks: { keys: [two.privateJwk] },
        redirect_uri: redirectUri,
        scope: 'profile',
      },
      auth_code_expiry_wait_seconds: 7,
    },
  };
}

/** The demo instance with `overrides`, on `port`, with the MCP server of `examples/mcp` at `/mcp`. */
async function startGatehouseAt(
  port: number,
  overrides: DemoOptions['overrides'],
  mcp = false,
  breakage?: Breakage,
): Promise<TestServer> {
  const demo = await createDemo({ port, warn: () => {}, ...(overrides ? { overrides } : {}) });
  const mcpEndpoint = mcp
    ? (await import('@gatehousejs/example-mcp')).mcpServer(demo.gatehouse, { resource: `${demo.origin}/mcp` })
    : undefined;
  const server = createServer(async (req, res) => {
    try {
      let request = toWebRequest(req, { response: res });
      if (breakage?.request) request = await breakage.request(request);
      let answer = (await mcpEndpoint?.fetch(request)) ?? (await demo.gatehouse.fetch(request));
      if (breakage?.response) answer = await breakage.response(request, answer);
      await sendWebResponse(res, answer);
    } catch (error) {
      console.error(error);
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    }
  });
  await listen(server, port);
  return {
    issuer: demo.issuer,
    origin: demo.origin,
    config: gatehouseConfig(demo.origin, demo.issuer),
    close: () => closeServer(server),
  };
}

/**
 * How a deliberately broken instance misbehaves: the demo's answers rewritten on their way out (or
 * its requests on their way in), so that each module family can be seen to fail.
 */
export interface Breakage {
  readonly request?: (request: Request) => Promise<Request> | Request;
  readonly response?: (request: Request, response: Response) => Promise<Response> | Response;
}

/** The demo (with its MCP server) broken as `breakage` says. */
export async function startBrokenGatehouse(
  breakage: Breakage,
  overrides?: DemoOptions['overrides'],
): Promise<TestServer> {
  const port = await freePort();
  const server = await startGatehouseAt(port, overrides, true, breakage);
  return {
    ...server,
    config: {
      ...server.config,
      mcp: {
        resource: `${server.origin}/mcp`,
        scope: DEMO.mcp.scope,
        client: { client_id: DEMO.publicClient.id, redirect_uri: `${server.origin}/callback` },
      },
    },
  };
}

/** The demo instance with the MCP server at `/mcp` and the config of the MCP plan (`demo-spa`, public, PKCE). */
export async function startGatehouseMcp(): Promise<TestServer> {
  const port = await freePort();
  const server = await startGatehouseAt(port, undefined, true);
  return {
    ...server,
    config: {
      ...server.config,
      mcp: {
        resource: `${server.origin}/mcp`,
        scope: DEMO.mcp.scope,
        client: { client_id: DEMO.publicClient.id, redirect_uri: `${server.origin}/callback` },
      },
    },
  };
}
