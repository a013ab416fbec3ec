import { defineOperations, protectedResource, protectedResourceMetadataUrl } from '@gatehousejs/core/protect';
import { describe, expect, it } from 'vitest';
import { authorizeUrl, callbackParams, FakeBrowser, logIn } from '../../test/browser-flow';
import {
  authApiToken,
  ISSUER,
  issueTokens,
  PKCE_VERIFIER,
  post,
  REDIRECT_URI,
  type TestInstance,
  testInstance,
} from '../../test/fixtures';

const MCP = 'http://localhost:3000/mcp';
const METADATA = 'http://localhost:3000/.well-known/oauth-protected-resource/mcp';

/** An access token of `demo-spa` for `resources`, through the browser flow. */
async function tokenFor(t: TestInstance, resources: readonly string[], scope = 'read'): Promise<string> {
  const url = new URL(authorizeUrl({ client_id: 'demo-spa', scope }));
  for (const resource of resources) url.searchParams.append('resource', resource);
  const browser = new FakeBrowser(t.gatehouse);
  const code = callbackParams(await browser.follow(await logIn(browser, url.href))).get('code')!;
  const response = await t.gatehouse.fetch(
    post('/oauth2/v1/token', {
      grant_type: 'authorization_code',
      client_id: 'demo-spa',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: PKCE_VERIFIER,
    }),
  );
  return (await response.json()).access_token;
}

const call = (token?: string) =>
  new Request(MCP, { method: 'POST', headers: token ? { Authorization: `Bearer ${token}` } : {} });

describe('protected resource metadata (RFC 9728)', () => {
  it('inserts the well-known suffix between the origin and the path', () => {
    expect(protectedResourceMetadataUrl(MCP)).toBe(METADATA);
    expect(protectedResourceMetadataUrl('https://api.example.com/')).toBe(
      'https://api.example.com/.well-known/oauth-protected-resource',
    );
    expect(() => protectedResourceMetadataUrl('https://api.example.com/x?y=1')).toThrow(TypeError);
    expect(() => protectedResourceMetadataUrl('urn:example:api')).toThrow(TypeError);
  });

  it('serves the metadata document of a standalone resource', async () => {
    const t = await testInstance({ resources: [MCP] });
    const mcp = protectedResource(t.gatehouse, { resource: MCP, scopes: ['read'], resourceName: 'Tickets' });
    const response = mcp.fetch(new Request(METADATA))!;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      resource: MCP,
      authorization_servers: [ISSUER],
      scopes_supported: ['read'],
      bearer_methods_supported: ['header'],
      resource_name: 'Tickets',
    });
    expect(mcp.fetch(new Request(METADATA, { method: 'POST' }))!.status).toBe(405);
    expect(
      mcp.fetch(new Request('http://localhost:3000/.well-known/oauth-protected-resource')),
    ).toBeUndefined();
  });

  it('challenges a request without a token with resource_metadata and the required scope', async () => {
    const t = await testInstance({ resources: [MCP] });
    const mcp = protectedResource(t.gatehouse, { resource: MCP, scopes: ['read'] });
    const result = await mcp.authenticate(call(), 'read');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.response.status).toBe(401);
    expect(result.response.headers.get('www-authenticate')).toBe(
      `Bearer realm="${ISSUER}", scope="read", resource_metadata="${METADATA}"`,
    );
  });

  it('accepts a token issued for the resource', async () => {
    const t = await testInstance({ resources: [MCP] });
    const mcp = protectedResource(t.gatehouse, { resource: MCP });
    const result = await mcp.authenticate(call(await tokenFor(t, [MCP])), 'read');
    expect(result.ok && result.caller.sub).toBe('user-1');
  });

  it('refuses tokens of another audience, OAuth or Auth API, with 401 invalid_token', async () => {
    const t = await testInstance({ resources: [MCP] });
    const mcp = protectedResource(t.gatehouse, { resource: MCP });
    for (const token of [(await issueTokens(t, 'read')).access_token, await authApiToken(t)]) {
      const result = await mcp.authenticate(call(token));
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.response.status).toBe(401);
      expect(result.response.headers.get('www-authenticate')).toMatch(
        new RegExp(`error="invalid_token".*resource_metadata="${METADATA}"`),
      );
    }
    // And the instance's own API refuses the resource's token in turn.
    const own = await t.gatehouse.authenticate(call(await tokenFor(t, [MCP])), { schemes: ['bearer'] });
    expect(own.ok).toBe(false);
  });

  it('lists every required scope in one insufficient_scope challenge', async () => {
    const t = await testInstance({ resources: [MCP] });
    const mcp = protectedResource(t.gatehouse, { resource: MCP });
    const result = await mcp.authenticate(call(await tokenFor(t, [MCP], 'read')), ['read', 'write']);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.response.status).toBe(403);
    expect(result.response.headers.get('www-authenticate')).toContain(
      `error="insufficient_scope", error_description="The access token lacks a scope this operation requires.", scope="read write", resource_metadata="${METADATA}"`,
    );
  });

  it('publishes the metadata of an operation table and binds its operations to the resource', async () => {
    const api = `${ISSUER}/api/v2`;
    const t = await testInstance({ resources: [api] });
    const operations = defineOperations(
      t.gatehouse,
      {
        'GET /api/v2/things': {
          schemes: ['bearer'],
          scope: 'read',
          handler: () => Response.json({ ok: true }),
        },
        'POST /api/v2/things': {
          schemes: ['bearer'],
          scope: 'write',
          handler: () => Response.json({ ok: true }),
        },
      },
      { resource: { resource: api } },
    );
    const metadata = await operations(
      new Request('http://localhost:3000/.well-known/oauth-protected-resource/demo/api/v2'),
    );
    expect(await metadata!.json()).toMatchObject({ resource: api, scopes_supported: ['read', 'write'] });
    const things = `${api}/things`;
    const anonymous = await operations(new Request(things));
    expect(anonymous!.headers.get('www-authenticate')).toContain('resource_metadata=');
    const ownApi = await operations(
      new Request(things, {
        headers: { Authorization: `Bearer ${(await issueTokens(t, 'read')).access_token}` },
      }),
    );
    expect(ownApi!.status).toBe(401);
    const forApi = await operations(
      new Request(things, { headers: { Authorization: `Bearer ${await tokenFor(t, [api])}` } }),
    );
    expect(forApi!.status).toBe(200);
    expect(await operations(new Request(`${ISSUER}/elsewhere`))).toBeUndefined();
  });
});
