/**
 * The MCP server of `pnpm start` (examples/mcp at `/mcp`, protected by the `demo` instance), over
 * HTTP, the user in headless Chromium:
 *
 * - the official MCP SDK client (`Client` + `StreamableHTTPClientTransport` with an
 *   `OAuthClientProvider`) goes from the unauthenticated 401 to `callTool('list_tickets')`:
 *   discovery (RFC 9728 metadata named by the challenge, then RFC 8414 metadata at the
 *   path-inserted location), authorization with `resource` (RFC 8707), token, reconnect;
 * - tokens of another audience (an OAuth token without the resource, an Auth API token) are refused
 *   by `/mcp` with 401 `invalid_token`;
 * - the `resource` rules with oauth4webapi: `aud` is the resource, an unknown one is
 *   `invalid_target`, a refresh narrows.
 *
 * The SDK client registers each of the three ways the demo offers: pre-registered (`demo-spa`,
 * static client information), by a client ID metadata document (an https URL served here with a
 * throwaway certificate the server trusts through `NODE_EXTRA_CA_CERTS`), and by RFC 7591 dynamic
 * registration.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO } from '@gatehousejs/demo';
import { type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationFull,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import * as oauth from 'oauth4webapi';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumSkipReason, launchChromium } from './support/browser';
import { type DemoServer, startDemoServer } from './support/demo-server';

const skip = chromiumSkipReason('mcp.test');
const insecure = { [oauth.allowInsecureRequests]: true } as const;

/** The claims of a JWT access token, unverified (the server verified it; the test reads `aud`). */
const decodeJwt = (jwt: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'));

/** How the SDK client gets its client id. */
type Registration =
  | { readonly kind: 'pre-registered' }
  | { readonly kind: 'metadata document'; readonly url: string }
  | { readonly kind: 'dynamic registration' };

/** An MCP client's OAuth state, everything kept in memory. */
class TestClientProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  registered: OAuthClientInformationFull | undefined;
  #verifier = '';
  #tokens: OAuthTokens | undefined;

  constructor(
    readonly origin: string,
    readonly registration: Registration,
  ) {}

  get redirectUrl(): string {
    return `${this.origin}/callback`;
  }

  get clientMetadataUrl(): string | undefined {
    return this.registration.kind === 'metadata document' ? this.registration.url : undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'MCP test client',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  clientInformation() {
    if (this.registration.kind === 'pre-registered') return { client_id: DEMO.publicClient.id };
    return this.registered;
  }

  saveClientInformation(information: OAuthClientInformationFull) {
    this.registered = information;
  }

  tokens() {
    return this.#tokens;
  }

  saveTokens(tokens: OAuthTokens) {
    this.#tokens = tokens;
  }

  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }

  codeVerifier() {
    return this.#verifier;
  }
}

describe.skipIf(skip !== undefined)('the MCP server of the demo (examples/mcp at /mcp)', () => {
  let server: DemoServer;
  let browser: Browser;
  let mcpUrl: string;
  let documentServer: Server;
  let documentUrl: string;
  let documentFetches = 0;
  let certificates: string;

  beforeAll(async () => {
    // A client ID metadata document must be https (the SDK and the draft): a throwaway certificate
    // for localhost, trusted by the demo server's process only.
    certificates = mkdtempSync(join(tmpdir(), 'gatehouse-mcp-'));
    const [key, cert] = [join(certificates, 'key.pem'), join(certificates, 'cert.pem')];
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost',
      ],
      { stdio: 'ignore' },
    );
    documentServer = createServer(
      { key: readFileSync(key), cert: readFileSync(cert) },
      (request, response) => {
        documentFetches++;
        if (request.url !== '/mcp-client.json') return void response.writeHead(404).end();
        response.writeHead(200, { 'Content-Type': 'application/json' }).end(
          JSON.stringify({
            client_id: documentUrl,
            client_name: 'MCP test client (metadata document)',
            redirect_uris: [`${server.origin}/callback`],
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code'],
            token_endpoint_auth_method: 'none',
          }),
        );
      },
    );
    await new Promise<void>((resolve) => documentServer.listen(0, '127.0.0.1', resolve));
    documentUrl = `https://localhost:${(documentServer.address() as { port: number }).port}/mcp-client.json`;
    [server, browser] = await Promise.all([startDemoServer({ NODE_EXTRA_CA_CERTS: cert }), launchChromium()]);
    mcpUrl = `${server.origin}${DEMO.mcp.path}`;
  }, 30_000);

  afterAll(async () => {
    await Promise.all([
      browser?.close(),
      server?.stop(),
      new Promise((resolve) => (documentServer ? documentServer.close(resolve) : resolve(undefined))),
    ]);
    if (certificates) rmSync(certificates, { recursive: true, force: true });
  });

  /**
   * Logs the demo user in at `authorizationUrl` in a fresh browser context and returns where the
   * browser was sent back to (the callback is answered by the test, so nothing else uses the code).
   */
  async function authorizeInBrowser(authorizationUrl: string): Promise<URL> {
    const context: BrowserContext = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.route(`${server.origin}/callback**`, (route) =>
        route.fulfill({
          status: 200,
          contentType: 'text/html',
          body: '<!doctype html><title>callback</title>',
        }),
      );
      await page.goto(authorizationUrl);
      await page.fill('input[name="username"]', DEMO.user.username);
      await page.fill('input[name="password"]', DEMO.user.password);
      const callback = `${server.origin}/callback?**`;
      await page.click('button[type="submit"]');
      // A registered client is a third party: the user is asked to consent first.
      const allow = page.locator('button[name="decision"][value="allow"]');
      await Promise.race([page.waitForURL(callback), allow.waitFor()]);
      if (!page.url().startsWith(`${server.origin}/callback`))
        await Promise.all([page.waitForURL(callback), allow.click()]);
      return new URL(page.url());
    } finally {
      await context.close();
    }
  }

  const callMcp = (token: string) =>
    fetch(mcpUrl, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });

  const registrations = (): Registration[] => [
    { kind: 'pre-registered' },
    { kind: 'metadata document', url: documentUrl },
    { kind: 'dynamic registration' },
  ];

  it.each(['pre-registered', 'metadata document', 'dynamic registration'] as const)(
    'the official SDK client (%s) goes from the 401 to callTool("list_tickets"): discovery, registration, authorization, token, reconnect',
    async (kind) => {
      const registration = registrations().find((candidate) => candidate.kind === kind)!;
      const provider = new TestClientProvider(server.origin, registration);
      const fetchesBefore = documentFetches;
      const first = new Client({ name: 'gatehouse-test', version: '0.0.0' });
      await expect(
        first.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider })),
      ).rejects.toBeInstanceOf(UnauthorizedError);

      // Found from the challenge's resource_metadata and the authorization server's metadata.
      const authorizationUrl = provider.authorizationUrl!;
      expect(authorizationUrl.href.startsWith(`${server.issuer}/oauth2/v1/authorize?`)).toBe(true);
      expect(authorizationUrl.searchParams.get('resource')).toBe(mcpUrl);
      expect(authorizationUrl.searchParams.get('scope')).toBe(DEMO.mcp.scope);
      expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
      const clientId = authorizationUrl.searchParams.get('client_id');
      if (kind === 'pre-registered') expect(clientId).toBe(DEMO.publicClient.id);
      if (kind === 'metadata document') expect(clientId).toBe(documentUrl);
      if (kind === 'dynamic registration') {
        // RFC 7591: a public client of its own, registered at the endpoint the metadata names.
        expect(provider.registered?.client_id).toBe(clientId);
        expect(clientId).not.toBe(DEMO.publicClient.id);
        expect(provider.registered?.client_secret).toBeUndefined();
      }

      const callback = await authorizeInBrowser(authorizationUrl.href);
      expect(callback.searchParams.get('iss')).toBe(server.issuer);
      const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider });
      await transport.finishAuth(callback.searchParams.get('code')!);
      const tokens = provider.tokens()!;
      expect(decodeJwt(tokens.access_token)).toMatchObject({
        aud: mcpUrl,
        scope: DEMO.mcp.scope,
        sub: DEMO.user.id,
      });

      // Reconnect with the token.
      const client = new Client({ name: 'gatehouse-test', version: '0.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }));
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['list_tickets']);
      const result = await client.callTool({ name: 'list_tickets', arguments: { limit: 3 } });
      const { tickets } = result.structuredContent as { tickets: { ownerSub: string }[] };
      expect(tickets).toHaveLength(3);
      expect(tickets.every((ticket) => ticket.ownerSub === DEMO.user.id)).toBe(true);
      await client.close();
      // The document was fetched (and then cached), only for the client that names it.
      if (kind === 'metadata document') expect(documentFetches).toBeGreaterThan(fetchesBefore);
      else expect(documentFetches).toBe(fetchesBefore);
    },
    60_000,
  );

  it('refuses an Auth API token (another audience) with 401 invalid_token and the metadata URL', async () => {
    const response = await fetch(`${server.issuer}/auth/v1/token`, {
      method: 'POST',
      headers: { Authorization: `Basic ${btoa(`${DEMO.user.username}:${DEMO.user.password}`)}` },
    });
    const { access_token } = (await response.json()) as { access_token: string };
    const refused = await callMcp(access_token);
    expect(refused.status).toBe(401);
    const challenge = refused.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain(
      `resource_metadata="${server.origin}/.well-known/oauth-protected-resource${DEMO.mcp.path}"`,
    );
  });

  describe('resource indicators with oauth4webapi', () => {
    let as: oauth.AuthorizationServer;
    const client: oauth.Client = { client_id: DEMO.client.id };
    const clientAuth = oauth.ClientSecretBasic(DEMO.client.secret);

    beforeAll(async () => {
      const issuer = new URL(server.issuer);
      as = await oauth.processDiscoveryResponse(
        issuer,
        await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
      );
    });

    /** Tokens of `demo-client` for `resources` (none: the default audience), through Chromium. */
    async function tokensFor(resources: readonly string[]) {
      const verifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const redirectUri = `${server.origin}/callback`;
      const authorize = new URL(as.authorization_endpoint!);
      authorize.searchParams.set('client_id', client.client_id);
      authorize.searchParams.set('redirect_uri', redirectUri);
      authorize.searchParams.set('response_type', 'code');
      authorize.searchParams.set('scope', DEMO.mcp.scope);
      authorize.searchParams.set('state', state);
      authorize.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
      authorize.searchParams.set('code_challenge_method', 'S256');
      for (const resource of resources) authorize.searchParams.append('resource', resource);
      const callback = await authorizeInBrowser(authorize.href);
      const params = oauth.validateAuthResponse(as, client, callback, state);
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        clientAuth,
        params,
        redirectUri,
        verifier,
        insecure,
      );
      return oauth.processAuthorizationCodeResponse(as, client, response);
    }

    it('gives the token the resource as its audience; a token without it is refused by /mcp', async () => {
      const forMcp = await tokensFor([mcpUrl]);
      expect(decodeJwt(forMcp.access_token).aud).toBe(mcpUrl);
      expect((await callMcp(forMcp.access_token)).status).toBe(200);

      const withoutResource = await tokensFor([]);
      expect(decodeJwt(withoutResource.access_token).aud).toBe(`${server.issuer}/api/v1`);
      const refused = await callMcp(withoutResource.access_token);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    }, 60_000);

    it('answers invalid_target for a resource the instance does not know', async () => {
      const state = oauth.generateRandomState();
      const authorize = new URL(as.authorization_endpoint!);
      for (const [name, value] of Object.entries({
        client_id: client.client_id,
        redirect_uri: `${server.origin}/callback`,
        response_type: 'code',
        state,
        code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
        code_challenge_method: 'S256',
        resource: 'https://unknown.example/api',
      }))
        authorize.searchParams.set(name, value);
      const response = await fetch(authorize, { redirect: 'manual' });
      const callback = new URL(response.headers.get('location')!);
      expect(() => oauth.validateAuthResponse(as, client, callback, state)).toThrow(
        expect.objectContaining({ error: 'invalid_target' }),
      );
    });

    it('lets a refresh narrow the resources, and refuses one outside the grant', async () => {
      const api = `${server.issuer}/api/v1`;
      const both = await tokensFor([mcpUrl, api]);
      expect(decodeJwt(both.access_token).aud).toEqual([mcpUrl, api]);
      const narrowed = await oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, clientAuth, both.refresh_token!, {
          additionalParameters: { resource: mcpUrl },
          ...insecure,
        }),
      );
      expect(decodeJwt(narrowed.access_token).aud).toBe(mcpUrl);

      const onlyMcp = await tokensFor([mcpUrl]);
      const widened = await oauth.refreshTokenGrantRequest(as, client, clientAuth, onlyMcp.refresh_token!, {
        additionalParameters: { resource: api },
        ...insecure,
      });
      await expect(oauth.processRefreshTokenResponse(as, client, widened)).rejects.toMatchObject({
        error: 'invalid_target',
      });
    }, 60_000);
  });
});
