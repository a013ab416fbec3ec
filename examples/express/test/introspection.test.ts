/**
 * The introspection guide (packages/core/docs/api-in-another-service.md, "Seeing revocations")
 * against the Express example (`pnpm start`): the seeded resource server client `demo-rs`
 * introspects the `demo` instance's tokens for its API, and a `resourceServer()` in introspection
 * mode authenticates with it.
 */
import { resourceServer } from '@gatehousejs/core/protect';
import { DEMO } from '@gatehousejs/demo';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from './support/demo-server';

const basic = (id: string, secret: string) => `Basic ${btoa(`${id}:${secret}`)}`;
const RS = basic(DEMO.resourceServerClient.id, DEMO.resourceServerClient.secret);

describe('demo-rs, the demo resource server client, introspects tokens for the demo API', () => {
  let server: DemoServer;
  beforeAll(async () => {
    server = await startDemoServer();
  }, 30_000);
  afterAll(async () => {
    await server?.stop();
  });

  /** A demo-service token (client credentials), for `resource` when given, else the instance's API. */
  async function serviceToken(issuer: string, resource?: string): Promise<string> {
    const response = await fetch(`${issuer}/oauth2/v1/token`, {
      method: 'POST',
      headers: {
        Authorization: basic(DEMO.serviceClient.id, DEMO.serviceClient.secret),
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        scope: DEMO.serviceClient.scope,
        ...(resource ? { resource } : {}),
      }),
    });
    expect(response.status, await response.clone().text()).toBe(200);
    return ((await response.json()) as { access_token: string }).access_token;
  }

  const introspect = async (issuer: string, token: string) =>
    (
      await fetch(`${issuer}/oauth2/v1/introspect`, {
        method: 'POST',
        headers: { Authorization: RS, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token }),
      })
    ).json();

  it('is answered active for a token for {issuer}/api/v1, as the guide’s curl shows', async () => {
    const token = await serviceToken(server.issuer);
    expect(await introspect(server.issuer, token)).toMatchObject({
      active: true,
      client_id: DEMO.serviceClient.id,
      sub: DEMO.serviceClient.id,
      scope: DEMO.serviceClient.scope,
      aud: `${server.issuer}/api/v1`,
      iss: server.issuer,
    });
  });

  it('is answered inactive for a token of another resource (the MCP server) and for a revoked one', async () => {
    expect(
      await introspect(server.issuer, await serviceToken(server.issuer, `${server.origin}/mcp`)),
    ).toEqual({
      active: false,
    });
    const token = await serviceToken(server.issuer);
    const revoked = await fetch(`${server.issuer}/oauth2/v1/revoke`, {
      method: 'POST',
      headers: {
        Authorization: basic(DEMO.serviceClient.id, DEMO.serviceClient.secret),
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token }),
    });
    expect(revoked.status).toBe(200);
    expect(await introspect(server.issuer, token)).toEqual({ active: false });
  });

  it('authenticates a resourceServer() in introspection mode, and refuses the revoked token', async () => {
    const api = resourceServer({
      issuer: server.issuer,
      resource: `${server.issuer}/api/v1`,
      introspection: {
        clientId: DEMO.resourceServerClient.id,
        clientSecret: DEMO.resourceServerClient.secret,
        cacheTtl: 0,
      },
    });
    const token = await serviceToken(server.issuer);
    const call = () =>
      api.authenticate(
        new Request('http://localhost:4000/api/reports', { headers: { Authorization: `Bearer ${token}` } }),
        {
          schemes: ['bearer'],
          scope: DEMO.serviceClient.scope,
          subjects: ['client'],
        },
      );
    const accepted = await call();
    expect(accepted.ok && accepted.caller.sub).toBe(DEMO.serviceClient.id);
    await fetch(`${server.issuer}/oauth2/v1/revoke`, {
      method: 'POST',
      headers: {
        Authorization: basic(DEMO.serviceClient.id, DEMO.serviceClient.secret),
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token }),
    });
    const refused = await call();
    expect(refused.ok ? 200 : refused.response.status).toBe(401);
  });

  it('is the acme instance’s resource server there, and no other instance’s', async () => {
    const acme = `${server.origin}/acme`;
    const acmeToken = await serviceToken(acme);
    expect(await introspect(acme, acmeToken)).toMatchObject({ active: true, aud: `${acme}/api/v1` });
    expect(await introspect(acme, await serviceToken(server.issuer))).toEqual({ active: false });
  });
});
