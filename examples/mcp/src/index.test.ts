import { createDemo, DEMO } from '@gatehousejs/demo';
import { describe, expect, it } from 'vitest';
import { MCP, mcpResource, mcpServer } from './index';

const ORIGIN = 'http://localhost:3000';
const RESOURCE = mcpResource(ORIGIN);
const METADATA = `${ORIGIN}/.well-known/oauth-protected-resource/mcp`;

async function setUp() {
  const demo = await createDemo({ port: 3000, warn: () => {} });
  return { demo, mcp: mcpServer(demo.gatehouse, { resource: RESOURCE }) };
}

const initialize = (headers: Record<string, string> = {}) =>
  new Request(RESOURCE, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });

describe('the tickets MCP server', () => {
  it('is the resource {origin}/mcp of the demo instance', async () => {
    const { demo } = await setUp();
    const metadata = demo.gatehouse.metadata();
    expect(metadata.protected_resources).toContain(RESOURCE);
    expect(MCP).toEqual({ path: '/mcp', scope: 'tickets:read' });
  });

  it('publishes its RFC 9728 metadata naming the demo instance', async () => {
    const { demo, mcp } = await setUp();
    const response = await mcp.fetch(new Request(METADATA));
    expect(await response!.json()).toMatchObject({
      resource: RESOURCE,
      authorization_servers: [demo.issuer],
      scopes_supported: [DEMO.mcp.scope],
      bearer_methods_supported: ['header'],
    });
  });

  it('answers an unauthenticated request 401 with the metadata URL and the scope', async () => {
    const { mcp } = await setUp();
    const response = await mcp.fetch(initialize());
    expect(response!.status).toBe(401);
    expect(response!.headers.get('www-authenticate')).toBe(
      `Bearer realm="${ORIGIN}/demo", scope="tickets:read", resource_metadata="${METADATA}"`,
    );
  });

  it('refuses an Auth API token of the instance: its audience is the instance API', async () => {
    const { demo, mcp } = await setUp();
    const issued = await demo.gatehouse.fetch(
      new Request(`${demo.issuer}/auth/v1/token`, {
        method: 'POST',
        headers: { Authorization: `Basic ${btoa(`${DEMO.user.username}:${DEMO.user.password}`)}` },
      }),
    );
    const { access_token } = (await issued.json()) as { access_token: string };
    const response = await mcp.fetch(initialize({ Authorization: `Bearer ${access_token}` }));
    expect(response!.status).toBe(401);
    expect(response!.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('leaves every other path to the host', async () => {
    const { mcp } = await setUp();
    expect(await mcp.fetch(new Request(`${ORIGIN}/mcp/other`))).toBeUndefined();
    expect(await mcp.fetch(new Request(`${ORIGIN}/`))).toBeUndefined();
  });
});
