import { createDemo, createDemoHost, DEMO } from '@gatehousejs/demo';
import { describe, expect, it } from 'vitest';
import { authorizeUrl, callbackParams, FakeBrowser, signIn } from '../../../packages/core/test/browser-flow';
import { PKCE_VERIFIER, REDIRECT_URI } from '../../../packages/core/test/fixtures';

/**
 * The demo's admin API seeds (issue 44): on `demo`, the user `admin` and the client `demo-admin`
 * are allowed, the `demo` user is refused even with a token carrying the scope; `acme` has none.
 */

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
const basic = (id: string, secret: string) => `Basic ${btoa(`${id}:${secret}`)}`;

describe('the demo admin API seeds', () => {
  it('let demo-admin (client credentials) and the admin user in, and refuse the demo user', async () => {
    // Port 3000: the issuer of the browser helpers (http://localhost:3000/demo); nothing listens.
    const demo = await createDemo({ port: 3000, warn: () => {} });
    const { gatehouse, issuer } = demo;
    const admin = (path: string, token: string) =>
      gatehouse.fetch(
        new Request(`${issuer}/admin/v1${path}`, { headers: { Authorization: `Bearer ${token}` } }),
      );

    const response = await gatehouse.fetch(
      new Request(`${issuer}/oauth2/v1/token`, {
        method: 'POST',
        headers: { ...FORM, Authorization: basic(DEMO.admin.client.id, DEMO.admin.client.secret) },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: DEMO.admin.scope }),
      }),
    );
    expect(response.status).toBe(200);
    const clientToken = ((await response.json()) as { access_token: string }).access_token;
    const clients = (await (await admin('/clients', clientToken)).json()) as {
      clients: { clientId: string; origin: string; grantTypes: string[] }[];
    };
    expect(clients.clients.find((client) => client.clientId === DEMO.admin.client.id)).toMatchObject({
      origin: 'host',
      grantTypes: ['client_credentials'],
    });

    /** A user's access token for demo-client with the admin scope, through the login page. */
    const userToken = async (username: string, password: string) => {
      const browser = new FakeBrowser(gatehouse);
      const resumed = await signIn(
        browser,
        authorizeUrl({ scope: `openid ${DEMO.admin.scope}` }),
        username,
        password,
      );
      const code = callbackParams(resumed).get('code')!;
      const tokens = await gatehouse.fetch(
        new Request(`${issuer}/oauth2/v1/token`, {
          method: 'POST',
          headers: { ...FORM, Authorization: basic(DEMO.client.id, DEMO.client.secret) },
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            code,
            redirect_uri: REDIRECT_URI,
            code_verifier: PKCE_VERIFIER,
          }),
        }),
      );
      expect(tokens.status).toBe(200);
      const body = (await tokens.json()) as { access_token: string; scope: string };
      expect(body.scope.split(' ')).toContain(DEMO.admin.scope);
      return body.access_token;
    };
    const adminToken = await userToken(DEMO.admin.user.username, DEMO.admin.user.password);
    const users = (await (await admin(`/users?q=${DEMO.user.id}`, adminToken)).json()) as {
      users: unknown[];
    };
    expect(users.users).toEqual([
      { id: DEMO.user.id, username: DEMO.user.username, name: DEMO.user.claims.name },
    ]);
    const demoToken = await userToken(DEMO.user.username, DEMO.user.password);
    const refused = await admin('/keys', demoToken);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: string }).error).toBe('insufficient_scope');
  });

  it('serve the admin API on the demo host for demo only', async () => {
    const demo = await createDemoHost({ port: 3000, warn: () => {} });
    try {
      const openapi = (name: string) =>
        demo.host.fetch(new Request(`${demo.issuers[name as 'demo' | 'acme']}/admin/v1/openapi.json`));
      expect((await openapi('demo')).status).toBe(200);
      expect((await openapi('acme')).status).toBe(404);
    } finally {
      await demo.close();
    }
  });
});
