/**
 * Client registration over HTTP through the Express example server (what `pnpm start` runs): a
 * client registers by RFC 7591 dynamic registration, another identifies itself by a client ID
 * metadata document served on 127.0.0.1 (the demo allows loopback documents, a development
 * setting), and each completes the authorization code flow with oauth4webapi, the user signing in
 * through the login and consent forms, and calls the tickets API with its token.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEMO } from '@gatehousejs/demo';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from './support/demo-server';

const insecure = { [oauth.allowInsecureRequests]: true } as const;
const FORM = 'application/x-www-form-urlencoded';

const decodeEntities = (text: string) =>
  text.replace(
    /&(amp|lt|gt|quot|#39|#96);/g,
    (_, entity: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#96': '`' })[entity]!,
  );

/** The POST form of a Gatehouse page: its action and hidden fields. */
function parseForm(html: string): { action: string; fields: Record<string, string> } {
  const form = /<form\b[^>]*\bmethod="post"[^>]*\baction="([^"]*)"/i.exec(html);
  if (!form) throw new Error(`no POST form in the page:\n${html.slice(0, 800)}`);
  const fields: Record<string, string> = {};
  for (const input of html.matchAll(/<input\b[^>]*\btype="hidden"[^>]*>/gi)) {
    const name = /\bname="([^"]*)"/i.exec(input[0])?.[1];
    if (name !== undefined)
      fields[decodeEntities(name)] = decodeEntities(/\bvalue="([^"]*)"/i.exec(input[0])?.[1] ?? '');
  }
  return { action: decodeEntities(form[1]!), fields };
}

/** The user's browser: keeps cookies, submits forms, stops at the client's redirect URI. */
class UserAgent {
  readonly #cookies = new Map<string, string>();

  constructor(readonly origin: string) {}

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.#cookies.size > 0)
      headers.set('Cookie', [...this.#cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const eq = pair!.indexOf('=');
      this.#cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
    }
    return response;
  }

  submit(pageUrl: string, html: string, extra: Record<string, string>): Promise<Response> {
    const form = parseForm(html);
    return this.fetch(new URL(form.action, pageUrl).href, {
      method: 'POST',
      headers: {
        'Content-Type': FORM,
        Origin: this.origin,
        'Sec-Fetch-Site': 'same-origin',
        Accept: 'text/html',
      },
      body: new URLSearchParams({ ...form.fields, ...extra }),
    });
  }

  /**
   * Opens `authorizeUrl`, signs in, allows on the consent page (registered clients are third-party
   * clients), and returns the consent page's text and the URL the user is sent back to.
   */
  async authorize(authorizeUrl: string, redirectUri: string): Promise<{ consent: string; callback: URL }> {
    const navigation = { Accept: 'text/html', 'Sec-Fetch-Site': 'none', 'Sec-Fetch-Mode': 'navigate' };
    // authorize → (303) the login page of the sign-in interaction.
    const start = await this.fetch(authorizeUrl, { headers: navigation });
    expect(start.status).toBe(303);
    const loginUrl = new URL(start.headers.get('location')!, authorizeUrl).href;
    const loginPage = await this.fetch(loginUrl, {
      headers: { ...navigation, 'Sec-Fetch-Site': 'same-origin' },
    });
    expect(loginPage.status).toBe(200);
    let response = await this.submit(loginUrl, await loginPage.text(), {
      username: DEMO.user.username,
      password: DEMO.user.password,
    });
    let consent = '';
    let at = new URL(authorizeUrl);
    for (let hop = 0; hop < 6; hop++) {
      if (response.status === 200) {
        consent = await response.text();
        response = await this.submit(at.href, consent, { decision: 'allow' });
        continue;
      }
      expect([302, 303]).toContain(response.status);
      const location = new URL(response.headers.get('location')!, at);
      if (location.href.startsWith(redirectUri)) return { consent, callback: location };
      at = location;
      response = await this.fetch(location.href, {
        headers: { ...navigation, 'Sec-Fetch-Site': 'same-origin' },
      });
    }
    throw new Error('the authorization did not come back to the client');
  }
}

describe('client registration over HTTP', () => {
  let server: DemoServer;
  let as: oauth.AuthorizationServer;
  let documents: Server;
  let documentOrigin: string;
  let documentFetches = 0;

  beforeAll(async () => {
    server = await startDemoServer();
    const issuer = new URL(server.issuer);
    as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
    );
    documents = createServer((request, response) => {
      documentFetches++;
      const url = documentOrigin + request.url;
      response.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'max-age=300' });
      response.end(
        JSON.stringify({
          client_id: url,
          client_name: 'Metadata Document App',
          redirect_uris: [`${server.origin}/callback`],
          grant_types: ['authorization_code', 'refresh_token'],
          token_endpoint_auth_method: 'none',
        }),
      );
    });
    await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
    documentOrigin = `http://127.0.0.1:${(documents.address() as AddressInfo).port}`;
  }, 30_000);

  afterAll(async () => {
    documents?.closeAllConnections();
    await Promise.all([server?.stop(), new Promise((resolve) => documents?.close(resolve))]);
  });

  /** The code flow of `client` with PKCE, then a tickets API call with its access token. */
  async function codeFlow(client: oauth.Client) {
    const redirectUri = `${server.origin}/callback`;
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const authorize = new URL(as.authorization_endpoint!);
    authorize.search = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'tickets:read offline_access',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();
    const { consent, callback } = await new UserAgent(server.origin).authorize(authorize.href, redirectUri);
    const parameters = oauth.validateAuthResponse(as, client, callback, state);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(
        as,
        client,
        oauth.None(),
        parameters,
        redirectUri,
        verifier,
        insecure,
      ),
    );
    const tickets = await fetch(`${server.issuer}/api/v1/tickets`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${tokens.access_token}`, 'Content-Type': 'application/json' },
      body: '{"limit":2}',
    });
    return { consent, tokens, tickets };
  }

  it('advertises both ways of registering in the metadata', () => {
    expect(as.registration_endpoint).toBe(`${server.issuer}/oauth2/v1/register`);
    expect(as.client_id_metadata_document_supported).toBe(true);
  });

  it('registers a public client by RFC 7591 and signs its user in', async () => {
    const registration = await oauth.dynamicClientRegistrationRequest(
      as,
      {
        client_name: 'Registered Native App',
        redirect_uris: [`${server.origin}/callback`],
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'none',
        application_type: 'native',
      },
      insecure,
    );
    const client = await oauth.processDynamicClientRegistrationResponse(registration);
    expect(client.token_endpoint_auth_method).toBe('none');
    expect(client.client_secret).toBeUndefined();

    const { consent, tokens, tickets } = await codeFlow(client);
    expect(consent).toContain('Registered Native App');
    expect(consent).toContain(`You will be sent back to <strong>${new URL(server.origin).host}</strong>`);
    expect(tokens.refresh_token).toBeTruthy();
    expect(tickets.status).toBe(200);

    // RFC 7592: the registration access token reads and deletes the registration.
    const uri = client.registration_client_uri as string;
    const auth = { Authorization: `Bearer ${client.registration_access_token}` };
    expect((await fetch(uri, { headers: auth })).status).toBe(200);
    expect((await fetch(uri, { method: 'DELETE', headers: auth })).status).toBe(204);
    const refresh = await fetch(as.token_endpoint!, {
      method: 'POST',
      headers: { 'Content-Type': FORM },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token!,
        client_id: client.client_id,
      }),
    });
    expect(refresh.status).toBe(401);
  });

  it('refuses registration metadata with the RFC 7591 errors', async () => {
    const register = (metadata: Record<string, unknown>) =>
      fetch(as.registration_endpoint!, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(metadata),
      });
    const badRedirect = await register({ redirect_uris: ['http://app.example/callback'] });
    expect(badRedirect.status).toBe(400);
    expect((await badRedirect.json()).error).toBe('invalid_redirect_uri');
    const badMethod = await register({
      redirect_uris: ['https://app.example/callback'],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    expect(badMethod.status).toBe(400);
    expect((await badMethod.json()).error).toBe('invalid_client_metadata');
  });

  it('uses a client ID metadata document as the registration of a URL client_id', async () => {
    const client: oauth.Client = {
      client_id: `${documentOrigin}/oauth-client.json`,
      token_endpoint_auth_method: 'none',
    };
    const { consent, tokens, tickets } = await codeFlow(client);
    expect(consent).toContain('Metadata Document App');
    expect(tokens.access_token).toBeTruthy();
    expect(tickets.status).toBe(200);
    expect(documentFetches).toBe(1);
  });
});
