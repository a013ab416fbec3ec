import { withAuthentication } from '@gatehousejs/core/adapter';
import { resourceServer } from '@gatehousejs/core/protect';
import { describe, expect, it } from 'vitest';
import { authorizeUrl, callbackParams, FakeBrowser, logIn } from '../../test/browser-flow';
import { ath, type DpopTestKey, dpopKey, dpopProof } from '../../test/dpop';
import {
  authApiToken,
  ISSUER,
  PKCE_VERIFIER,
  post,
  REDIRECT_URI,
  type TestInstance,
  testInstance,
} from '../../test/fixtures';

const MCP = 'http://localhost:3000/mcp';

/** An access token of `demo-spa` for the MCP resource. */
async function tokenForMcp(t: TestInstance, scope = 'read', key?: DpopTestKey): Promise<string> {
  const url = new URL(authorizeUrl({ client_id: 'demo-spa', scope }));
  url.searchParams.append('resource', MCP);
  const browser = new FakeBrowser(t.gatehouse);
  const code = callbackParams(await browser.follow(await logIn(browser, url.href))).get('code')!;
  const response = await t.gatehouse.fetch(
    post(
      '/oauth2/v1/token',
      {
        grant_type: 'authorization_code',
        client_id: 'demo-spa',
        code,
        redirect_uri: REDIRECT_URI,
        code_verifier: PKCE_VERIFIER,
      },
      key === undefined
        ? {}
        : { DPoP: await dpopProof(key, 'POST', `${ISSUER}/oauth2/v1/token`, Date.now()) },
    ),
  );
  return (await response.json()).access_token;
}

/** A resource server fetching the instance's JWKS through the instance itself (no network). */
function mcpServer(t: TestInstance) {
  return resourceServer({
    issuer: ISSUER,
    resource: MCP,
    resourceMetadata: 'http://localhost:3000/.well-known/oauth-protected-resource/mcp',
    fetch: (url, init) => t.gatehouse.fetch(new Request(url, init)),
  });
}

const bearer = (token: string) => new Request(MCP, { headers: { Authorization: `Bearer ${token}` } });

describe('resource server apart from the instance', () => {
  it('accepts a token of the issuer for the resource, verified with the published keys', async () => {
    const t = await testInstance({ resources: [MCP], now: Date.now });
    const result = await mcpServer(t).authenticate(bearer(await tokenForMcp(t)), 'read');
    expect(result.ok && result.caller).toMatchObject({
      sub: 'user-1',
      clientId: 'demo-spa',
      scope: ['read'],
    });
  });

  it('refuses a token for another audience with 401 invalid_token naming the metadata', async () => {
    const t = await testInstance({ resources: [MCP], now: Date.now });
    const result = await mcpServer(t).authenticate(bearer(await authApiToken(t)));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.response.status).toBe(401);
    expect(result.response.headers.get('www-authenticate')).toMatch(
      /error="invalid_token".*resource_metadata=/,
    );
  });

  it('answers 403 insufficient_scope with every required scope, and 401 without a token', async () => {
    const t = await testInstance({ resources: [MCP], now: Date.now });
    const server = mcpServer(t);
    const lacking = await server.authenticate(bearer(await tokenForMcp(t)), ['read', 'write']);
    expect(!lacking.ok && lacking.response.status).toBe(403);
    expect(!lacking.ok && lacking.response.headers.get('www-authenticate')).toContain('scope="read write"');
    const anonymous = await server.authenticate(new Request(MCP));
    expect(!anonymous.ok && anonymous.response.status).toBe(401);
  });

  it('answers 503 when the keys cannot be fetched', async () => {
    const t = await testInstance({ resources: [MCP], now: Date.now });
    const token = await tokenForMcp(t);
    const unreachable = resourceServer({
      issuer: ISSUER,
      resource: MCP,
      fetch: () => Promise.reject(new TypeError('fetch failed')),
    });
    const result = await unreachable.authenticate(bearer(token));
    expect(!result.ok && result.response.status).toBe(503);
  });

  it("plugs in wherever an instance does: authenticate with the adapters' options", async () => {
    const t = await testInstance({ resources: [MCP], now: Date.now });
    const server = mcpServer(t);
    const token = await tokenForMcp(t);
    const allowed = await withAuthentication(
      server,
      bearer(token),
      { schemes: ['bearer'], scope: 'read' },
      (r) => r,
    );
    expect(allowed.ok && allowed.caller.sub).toBe('user-1');
    const lacking = await server.authenticate(bearer(token), { schemes: ['bearer'], scope: 'write' });
    expect(!lacking.ok && lacking.response.status).toBe(403);
    // Tokens of users only, by default, as an instance answers.
    const usersOnly = await server.authenticate(bearer(token), { schemes: ['bearer'], subjects: ['client'] });
    expect(!usersOnly.ok && usersOnly.response.status).toBe(403);
    await expect(server.authenticate(bearer(token), { schemes: ['session'] })).rejects.toThrow(
      /schemes must include 'bearer'/,
    );
    await expect(
      server.authenticate(bearer(token), { schemes: ['bearer'], resource: 'https://elsewhere.example/api' }),
    ).rejects.toThrow(/is not this resource server's/);
  });

  it('accepts an issuer written with a trailing slash, and says why a token of another issuer is refused', async () => {
    const t = await testInstance({ resources: [MCP], now: Date.now });
    const token = await tokenForMcp(t);
    const slashed = resourceServer({
      issuer: `${ISSUER}/`,
      resource: MCP,
      fetch: (url, init) => t.gatehouse.fetch(new Request(url, init)),
    });
    expect((await slashed.authenticate(bearer(token), 'read')).ok).toBe(true);
    const other = resourceServer({
      issuer: 'http://localhost:3000/acme',
      resource: MCP,
      jwksUri: `${ISSUER}/oauth2/v1/keys`,
      fetch: (url, init) => t.gatehouse.fetch(new Request(url, init)),
    });
    const refused = await other.authenticate(bearer(token), 'read');
    expect(!refused.ok && (await refused.response.json()).error_description).toBe(
      'The access token was issued by another issuer.',
    );
  });

  it('accepts a DPoP-bound token with the DPoP scheme and a proof, and refuses it as Bearer', async () => {
    const t = await testInstance({ resources: [MCP], now: Date.now });
    const key = await dpopKey();
    const token = await tokenForMcp(t, 'read', key);
    const server = mcpServer(t);
    const proof = async (claims: Record<string, unknown> = {}) =>
      dpopProof(key, 'GET', MCP, Date.now(), { ath: await ath(token), ...claims });
    const dpop = (headers: Record<string, string>) =>
      server.authenticate(
        new Request(MCP, { headers: { Authorization: `DPoP ${token}`, ...headers } }),
        'read',
      );
    const accepted = await dpop({ DPoP: await proof() });
    expect(accepted.ok && accepted.caller).toMatchObject({ sub: 'user-1', dpopJkt: key.jkt });
    const asBearer = await server.authenticate(bearer(token), 'read');
    expect(!asBearer.ok && asBearer.response.status).toBe(401);
    expect(!asBearer.ok && asBearer.response.headers.get('www-authenticate')).toMatch(
      /DPoP realm=.*error="invalid_token".*algs=/,
    );
    const refusals: Record<string, string>[] = [
      {},
      { DPoP: await proof({ ath: await ath('x') }) },
      { DPoP: await proof({ htm: 'POST' }) },
    ];
    for (const headers of refusals) {
      const refused = await dpop(headers);
      expect(!refused.ok && refused.response.status).toBe(401);
      expect(!refused.ok && refused.response.headers.get('www-authenticate')).toMatch(
        /^DPoP realm=.*error="invalid_dpop_proof"/,
      );
    }
    const replayed = await proof();
    expect((await dpop({ DPoP: replayed })).ok).toBe(true);
    expect((await dpop({ DPoP: replayed })).ok).toBe(false);
  });
});
