/**
 * `mcp-authorization-server`: the authorization server side of the MCP authorization
 * specification (2025-11-25), as a client following it meets the server: discovery from the
 * resource's 401 (RFC 9728), server metadata (RFC 8414 / OpenID Connect Discovery), PKCE S256,
 * audience pinning with resource indicators across the code and the refresh (RFC 8707), `iss` on
 * error redirects (RFC 9207), client ID metadata documents and the fetches they must not make,
 * DPoP at the token endpoint (RFC 9449) and `offline_access`. The Foundation has no such plan; the
 * module names are this tool's.
 */
import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import type { Landing } from '../browser.js';
import type { ClientConfig, McpConfig } from '../config.js';
import type { HttpAnswer, ModuleContext } from '../context.js';
import { DpopKey } from '../dpop.js';
import type { PlanEnv } from '../env.js';
import { authRequest, authUrl, expectCode, landingExchange, readResponse } from '../flows.js';
import { checkTokenError, checkTokenResponse, clientAuth, endpoint, type Metadata, random } from '../op.js';
import type { TestModule, TestPlan } from '../runner.js';
import { serveDocuments } from '../serve.js';

type Client = ClientConfig & { redirect_uri: string };

function mcpConfig(t: ModuleContext): McpConfig & { client: Client } {
  const mcp = t.config.mcp;
  if (!mcp) return t.skip('the config has no `mcp` (resource and client)');
  if (!mcp.client.redirect_uri) return t.skip("the config's `mcp.client` has no redirect_uri");
  return mcp as McpConfig & { client: Client };
}

/** The well-known URLs of an issuer's metadata, in the order MCP clients try them (2025-11-25 §2.3.3). */
function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}

/** The server's metadata as an MCP client finds it (the first well-known URL that answers). */
async function asMetadata(t: ModuleContext): Promise<{ metadata: Metadata; answer: HttpAnswer }> {
  for (const url of metadataUrls(t.issuer)) {
    const answer = await t.request('GET', url);
    if (answer.status !== 200 || !answer.json) continue;
    const metadata = answer.json as Metadata;
    t.check(
      metadata.issuer === t.issuer,
      'RFC8414-3.3',
      `the metadata at ${url} names issuer ${JSON.stringify(metadata.issuer)}`,
      answer.exchange,
    );
    return { metadata, answer };
  }
  return t.stop('MCP-AUTH-2.3.3', `no metadata at any of ${metadataUrls(t.issuer).join(', ')}`);
}

/** The `resource_metadata` of a Bearer challenge (RFC 9728 §5.1). */
function resourceMetadataOf(challenge: string): string | undefined {
  return /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
}

interface McpFlow {
  readonly tokens: Record<string, unknown>;
  readonly answer: HttpAnswer;
  readonly code: string;
  readonly verifier: string;
}

/** A code flow of the MCP client: PKCE S256, `resource`, the user in the browser; tokens. */
async function mcpFlow(
  t: ModuleContext,
  env: PlanEnv,
  metadata: Metadata,
  options: {
    client?: Client;
    scope?: string;
    resource?: string;
    dpop?: DpopKey;
    extra?: Record<string, string>;
  } = {},
): Promise<McpFlow> {
  const mcp = mcpConfig(t);
  const client = options.client ?? mcp.client;
  const resource = options.resource ?? mcp.resource;
  const request = await authRequest(client, {
    scope: options.scope ?? mcp.scope ?? '',
    pkce: true,
    nonce: false,
    params: { resource, ...options.extra },
  });
  const ua = await env.userAgent(t);
  const url = authUrl(metadata, t, request);
  const landing = await ua.go(url);
  const x = landingExchange('GET', url, landing);
  const code = expectCode(t, readResponse(t, metadata, request, landing, x), x);
  const auth = await clientAuth(
    client,
    client.client_secret ? 'client_secret_basic' : 'none',
    metadata.issuer,
  );
  const form = {
    grant_type: 'authorization_code',
    code,
    redirect_uri: client.redirect_uri,
    code_verifier: request.verifier!,
    resource,
    ...auth.form,
  };
  const token = endpoint(t, metadata, 'token_endpoint');
  const answer = options.dpop
    ? await options.dpop.send(t, 'POST', token, { headers: auth.headers, form })
    : await t.request('POST', token, { headers: auth.headers, form });
  const tokens = checkTokenResponse(t, answer, options.dpop ? 'dpop' : 'bearer');
  return { tokens, answer, code, verifier: request.verifier! };
}

/** The audience of an access token: its JWT `aud`, else what introspection would say (unknown). */
function audienceOf(token: unknown): string[] | undefined {
  if (typeof token !== 'string') return undefined;
  try {
    const { aud } = decodeJwt(token);
    return aud === undefined ? undefined : Array.isArray(aud) ? aud : [aud];
  } catch {
    return undefined;
  }
}

/** Opens an authorization request whose client is a metadata document URL; where did it end? */
async function cimdAttempt(
  t: ModuleContext,
  env: PlanEnv,
  metadata: Metadata,
  clientId: string,
  redirectUri: string,
): Promise<{ landing: Landing; url: string }> {
  env.captureUri(redirectUri);
  const verifier = oauth.generateRandomCodeVerifier();
  const url = new URL(endpoint(t, metadata, 'authorization_endpoint'));
  const params = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    state: random(8),
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    scope: mcpConfig(t).scope ?? '',
  };
  for (const [name, value] of Object.entries(params)) if (value) url.searchParams.set(name, value);
  const ua = await env.userAgent(t);
  return { landing: await ua.go(url.href), url: url.href };
}

const modules: TestModule[] = [
  {
    name: 'mcp-protected-resource-discovery-from-401',
    summary:
      "The resource's 401 names its RFC 9728 metadata, which names this authorization server, whose metadata a client finds.",
    sections: ['RFC9728-5.1', 'RFC9728-3.3', 'RFC9728-2', 'RFC8414-3.3', 'MCP-AUTH-2.3'],
    async run(t) {
      const mcp = mcpConfig(t);
      const call = await t.request('POST', mcp.resource, {
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'gatehouse-conformance', version: '0' },
          },
        }),
      });
      if (call.status !== 401)
        return t.stop(
          'MCP-AUTH-2.3.1',
          `the resource answered ${call.status} without a token, not 401`,
          call.exchange,
        );
      const challenge = call.headers.get('www-authenticate') ?? '';
      const metadataUrl = resourceMetadataOf(challenge);
      if (!metadataUrl)
        return t.stop('RFC9728-5.1', 'the 401 challenge names no resource_metadata', call.exchange);
      const answer = await t.request('GET', metadataUrl);
      const prm = answer.json as { resource?: unknown; authorization_servers?: unknown } | undefined;
      if (answer.status !== 200 || !prm)
        return t.stop('RFC9728-3.2', `the resource metadata answered ${answer.status}`, answer.exchange);
      t.check(
        prm.resource === mcp.resource,
        'RFC9728-3.3',
        `the metadata's resource ${JSON.stringify(prm.resource)} is not the resource called`,
        answer.exchange,
      );
      t.check(
        Array.isArray(prm.authorization_servers) && prm.authorization_servers.includes(t.issuer),
        'RFC9728-2',
        'authorization_servers does not name the issuer under test',
        answer.exchange,
      );
      await asMetadata(t);
    },
  },
  {
    name: 'mcp-authorization-server-metadata',
    summary:
      'The metadata an MCP client needs: code flow, PKCE S256 (clients refuse a server without it), registration or client ID metadata documents.',
    sections: ['RFC8414-2', 'MCP-AUTH-2.3.3', 'MCP-AUTH-2.4', 'RFC7636-4.3'],
    async run(t) {
      const { metadata: m, answer } = await asMetadata(t);
      const x = answer.exchange;
      t.check(
        Array.isArray(m.code_challenge_methods_supported) &&
          (m.code_challenge_methods_supported as unknown[]).includes('S256'),
        'MCP-AUTH-2.4',
        'code_challenge_methods_supported does not list S256 (MCP clients must refuse to proceed)',
        x,
      );
      t.check(
        typeof m.authorization_endpoint === 'string' && typeof m.token_endpoint === 'string',
        'RFC8414-2',
        'the metadata lacks the authorization or token endpoint',
        x,
      );
      const registration =
        typeof m.registration_endpoint === 'string' || m.client_id_metadata_document_supported === true;
      if (!registration)
        t.warn(
          'MCP-AUTH-2.5',
          'neither registration_endpoint nor client_id_metadata_document_supported: MCP clients need a registered client',
          x,
        );
    },
  },
  {
    name: 'mcp-resource-indicator-audience-pinning',
    summary:
      'The token is for the resource asked (aud), the refresh keeps it, another resource on refresh is refused (invalid_target), and the resource accepts the token.',
    sections: ['RFC8707-2', 'RFC8707-2.2', 'MCP-AUTH-2.5.1'],
    async run(t, env) {
      const { metadata } = await asMetadata(t);
      const mcp = mcpConfig(t);
      const supported = Array.isArray(metadata.scopes_supported)
        ? (metadata.scopes_supported as string[])
        : [];
      const scope = [mcp.scope ?? '', supported.includes('offline_access') ? 'offline_access' : '']
        .filter(Boolean)
        .join(' ');
      const flow = await mcpFlow(t, env, metadata, { scope });
      const aud = audienceOf(flow.tokens.access_token);
      if (aud)
        t.check(
          aud.includes(mcp.resource),
          'RFC8707-2',
          `the access token's aud ${JSON.stringify(aud)} is not the resource asked`,
          flow.answer.exchange,
        );
      const use = await t.request('POST', mcp.resource, {
        headers: {
          authorization: `Bearer ${flow.tokens.access_token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'gatehouse-conformance', version: '0' },
          },
        }),
      });
      t.check(
        use.status !== 401 && use.status !== 403,
        'MCP-AUTH-2.5.1',
        `the resource refused the token issued for it (${use.status})`,
        use.exchange,
      );
      const refresh = flow.tokens.refresh_token;
      if (typeof refresh !== 'string') {
        t.warn('RFC8707-2.2', 'no refresh token was issued: the audience across a refresh was not checked');
        return;
      }
      const token = endpoint(t, metadata, 'token_endpoint');
      const auth = await clientAuth(
        mcp.client,
        mcp.client.client_secret ? 'client_secret_basic' : 'none',
        metadata.issuer,
      );
      const other = await t.request('POST', token, {
        headers: auth.headers,
        form: {
          grant_type: 'refresh_token',
          refresh_token: refresh,
          resource: 'https://elsewhere.example/mcp',
          ...auth.form,
        },
      });
      checkTokenError(
        t,
        other,
        ['invalid_target'],
        'RFC8707-2.2',
        'a refresh for a resource the grant never had',
      );
      const again = await t.request('POST', token, {
        headers: auth.headers,
        form: { grant_type: 'refresh_token', refresh_token: refresh, resource: mcp.resource, ...auth.form },
      });
      const refreshed = checkTokenResponse(t, again);
      const aud2 = audienceOf(refreshed.access_token);
      if (aud2)
        t.check(
          aud2.includes(mcp.resource) && !aud2.includes('https://elsewhere.example/mcp'),
          'RFC8707-2.2',
          `the refreshed token's aud ${JSON.stringify(aud2)} is not the resource`,
          again.exchange,
        );
    },
  },
  {
    name: 'mcp-resource-indicator-unknown-resource',
    summary:
      'An authorization request for a resource the server does not serve: invalid_target at the redirect URI (with iss), or an error page; never a code.',
    sections: ['RFC8707-2', 'RFC9207-2'],
    async run(t, env) {
      const { metadata } = await asMetadata(t);
      const mcp = mcpConfig(t);
      const request = await authRequest(mcp.client, {
        scope: mcp.scope ?? '',
        pkce: true,
        nonce: false,
        params: { resource: `https://unknown-${random(4)}.example/mcp` },
      });
      const ua = await env.userAgent(t);
      const url = authUrl(metadata, t, request);
      const landing = await ua.go(url);
      if (landing.kind === 'page') return;
      const x = landingExchange('GET', url, landing);
      const params = readResponse(t, metadata, request, landing, x);
      t.check(!params.has('code'), 'RFC8707-2', 'an unknown resource gave a code', x);
      t.check(
        params.get('error') === 'invalid_target',
        'RFC8707-2',
        `error is ${JSON.stringify(params.get('error'))}, expected invalid_target`,
        x,
      );
    },
  },
  {
    name: 'mcp-iss-on-error-redirect',
    summary:
      'An error sent back to the redirect URI (prompt=none without a session) carries iss, the issuer (RFC 9207 applies to errors too).',
    sections: ['RFC9207-2', 'RFC9207-2.4'],
    async run(t, env) {
      const { metadata } = await asMetadata(t);
      const mcp = mcpConfig(t);
      const request = await authRequest(mcp.client, {
        scope: mcp.scope ?? '',
        pkce: true,
        nonce: false,
        params: { resource: mcp.resource, prompt: 'none' },
      });
      const ua = await env.userAgent(t);
      const url = authUrl(metadata, t, request);
      const landing = await ua.go(url, { interact: false });
      const x = landingExchange('GET', url, landing);
      if (landing.kind === 'page')
        return t.stop('OIDCC-3.1.2.6', 'prompt=none showed a page instead of redirecting with an error', x);
      const params = readResponse(t, metadata, request, landing, x);
      t.check(
        params.has('error'),
        'OIDCC-3.1.2.6',
        'prompt=none without a session did not answer an error',
        x,
      );
      t.check(
        params.get('iss') === metadata.issuer,
        'RFC9207-2',
        `the error response's iss is ${JSON.stringify(params.get('iss'))}, not the issuer`,
        x,
      );
    },
  },
  {
    name: 'mcp-client-id-metadata-document',
    summary:
      'A client identified by the URL of its metadata document (served by this tool) completes the flow; the server fetched the document.',
    sections: ['MCP-AUTH-2.5.2', 'CIMD-3', 'CIMD-4'],
    async run(t, env) {
      const { metadata } = await asMetadata(t);
      if (metadata.client_id_metadata_document_supported !== true)
        return t.skip('client_id_metadata_document_supported is not true');
      const mcp = mcpConfig(t);
      const server = await serveDocuments(t, mcp.metadata_document_base);
      const redirectUri = `${server.base}/callback`;
      const clientId = `${server.base}/client-${random(6)}.json`;
      server.put(new URL(clientId).pathname, {
        contentType: 'application/json',
        body: JSON.stringify({
          client_id: clientId,
          client_name: 'gatehouse-conformance',
          redirect_uris: [redirectUri],
          token_endpoint_auth_method: 'none',
          grant_types: ['authorization_code'],
          response_types: ['code'],
        }),
      });
      const client: Client = { client_id: clientId, redirect_uri: redirectUri };
      env.captureUri(redirectUri);
      await mcpFlow(t, env, metadata, { client });
      t.check(
        server.fetched.includes(new URL(clientId).pathname),
        'CIMD-4',
        'the server issued tokens without fetching the client metadata document',
      );
    },
  },
  {
    name: 'mcp-client-id-metadata-document-ssrf',
    summary:
      'Client metadata documents the server must refuse: a client_id that is not the URL, a redirect (not followed), an oversized document, a redirect_uri not in the document, a fragment, a private address.',
    sections: ['CIMD-3', 'CIMD-4', 'CIMD-6', 'MCP-AUTH-2.5.2', 'RFC9700-4.3'],
    async run(t, env) {
      const { metadata } = await asMetadata(t);
      if (metadata.client_id_metadata_document_supported !== true)
        return t.skip('client_id_metadata_document_supported is not true');
      const mcp = mcpConfig(t);
      const server = await serveDocuments(t, mcp.metadata_document_base);
      const redirectUri = `${server.base}/callback`;
      const doc = (clientId: string, extra: Record<string, unknown> = {}) =>
        JSON.stringify({
          client_id: clientId,
          client_name: 'x',
          redirect_uris: [redirectUri],
          token_endpoint_auth_method: 'none',
          ...extra,
        });
      const good = server.put('/good.json', {
        contentType: 'application/json',
        body: doc(`${server.base}/good.json`),
      });
      const cases: [string, string, string][] = [
        [
          'a document whose client_id is another URL',
          server.put('/mismatch.json', { contentType: 'application/json', body: doc(good) }),
          redirectUri,
        ],
        [
          'a redirect to another document',
          server.put('/redirect.json', { contentType: 'application/json', body: '', location: good }),
          redirectUri,
        ],
        [
          'a document of 1 MB',
          server.put('/big.json', {
            contentType: 'application/json',
            body: doc(`${server.base}/big.json`, { padding: 'x'.repeat(1024 * 1024) }),
          }),
          redirectUri,
        ],
        [
          'a redirect_uri the document does not list',
          server.put('/other-redirect.json', {
            contentType: 'application/json',
            body: doc(`${server.base}/other-redirect.json`),
          }),
          `${server.base}/not-listed`,
        ],
        ['a client_id with a fragment', `${server.base}/good.json#fragment`, redirectUri],
        [
          'a document on a private address (link-local metadata service)',
          'http://169.254.169.254/latest/meta-data/client.json',
          redirectUri,
        ],
      ];
      for (const [what, clientId, uri] of cases) {
        const { landing, url } = await cimdAttempt(t, env, metadata, clientId, uri);
        if (landing.kind === 'redirect')
          t.check(
            !landing.url.searchParams.has('code'),
            'CIMD-4',
            `${what}: the server issued a code`,
            landingExchange('GET', url, landing),
          );
        else
          t.check(
            landing.page !== 'login' && landing.page !== 'consent',
            'CIMD-4',
            `${what}: the server went on to its ${landing.page} page instead of refusing the client`,
            landingExchange('GET', url, landing),
          );
      }
      t.check(
        !server.fetched.includes('/good.json'),
        'CIMD-4',
        'the server followed a redirect from one metadata document to another',
      );
    },
  },
  {
    name: 'mcp-dpop-token-endpoint',
    summary:
      'A token request with a DPoP proof gets a DPoP-bound token (token_type DPoP, cnf.jkt the key when a JWT).',
    sections: ['RFC9449-5', 'RFC9449-6.1'],
    async run(t, env) {
      const { metadata } = await asMetadata(t);
      if (!Array.isArray(metadata.dpop_signing_alg_values_supported))
        return t.skip('dpop_signing_alg_values_supported is absent: the server does not offer DPoP');
      const dpop = await DpopKey.generate();
      const flow = await mcpFlow(t, env, metadata, { dpop });
      try {
        const claims = decodeJwt(flow.tokens.access_token as string) as { cnf?: { jkt?: string } };
        t.check(
          claims.cnf?.jkt === dpop.thumbprint,
          'RFC9449-6.1',
          'the access token has no cnf.jkt of the proof key',
          flow.answer.exchange,
        );
      } catch {
        // An opaque token: the binding is the server's to keep.
      }
    },
  },
  {
    name: 'mcp-offline-access',
    summary:
      'scope offline_access gives a refresh token that works (skipped when the server does not list offline_access).',
    sections: ['OIDCC-11', 'RFC6749-6', 'MCP-AUTH-2.6'],
    async run(t, env) {
      const { metadata } = await asMetadata(t);
      const supported = Array.isArray(metadata.scopes_supported)
        ? (metadata.scopes_supported as string[])
        : [];
      if (!supported.includes('offline_access'))
        return t.skip('scopes_supported does not list offline_access');
      const mcp = mcpConfig(t);
      const flow = await mcpFlow(t, env, metadata, {
        scope: [mcp.scope ?? '', 'offline_access'].filter(Boolean).join(' '),
      });
      const refresh = flow.tokens.refresh_token;
      if (typeof refresh !== 'string')
        return t.stop(
          'OIDCC-11',
          'offline_access was granted but no refresh token issued',
          flow.answer.exchange,
        );
      const auth = await clientAuth(
        mcp.client,
        mcp.client.client_secret ? 'client_secret_basic' : 'none',
        metadata.issuer,
      );
      const again = await t.request('POST', endpoint(t, metadata, 'token_endpoint'), {
        headers: auth.headers,
        form: { grant_type: 'refresh_token', refresh_token: refresh, ...auth.form },
      });
      checkTokenResponse(t, again);
    },
  },
];

export const mcpPlan: TestPlan = {
  id: 'mcp-authorization-server',
  title: 'MCP authorization (2025-11-25): authorization server',
  interactive: true,
  modules,
};
