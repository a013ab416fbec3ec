import { type ClientRecord, hashClientSecret, memoryClientStore } from '@gatehousejs/core';
import { defineOperations } from '@gatehousejs/core/protect';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  basic,
  bearerPost,
  ISSUER,
  issueTokens,
  post,
  testClients,
  testInstance,
} from '../../../test/fixtures';

const TOKEN = '/oauth2/v1/token';
const SERVICE = { Authorization: basic('service', 'service-secret') };

const REPORTS_API = 'https://reports.example.com/api';

async function setUp() {
  const extra: ClientRecord[] = [
    {
      id: 'service',
      type: 'confidential',
      secretHash: await hashClientSecret('service-secret'),
      grantTypes: ['client_credentials'],
      scopes: ['read', 'openid'],
      redirectUris: [],
    },
    {
      id: 'public-service',
      type: 'public',
      grantTypes: ['client_credentials'],
      redirectUris: [],
    },
  ];
  return testInstance({
    scopes: ['openid', 'read', 'write'],
    resources: [REPORTS_API],
    clients: memoryClientStore([...(await testClients()), ...extra]),
  });
}

async function clientToken(t: Awaited<ReturnType<typeof setUp>>, scope = 'read'): Promise<string> {
  const response = await t.gatehouse.fetch(post(TOKEN, { grant_type: 'client_credentials', scope }, SERVICE));
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
}

async function expectError(response: Response, status: number, error: string) {
  expect(response.status).toBe(status);
  expect((await response.json()).error).toBe(error);
}

describe('client_credentials grant (RFC 6749 §4.4)', () => {
  it('issues a client token: sub is the client id, marked as a client, no refresh token', async () => {
    const t = await setUp();
    const response = await t.gatehouse.fetch(
      post(TOKEN, { grant_type: 'client_credentials', scope: 'read' }, SERVICE),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = await response.json();
    expect(body).toMatchObject({ token_type: 'Bearer', scope: 'read', expires_in: 3600 });
    expect(body.refresh_token).toBeUndefined();
    expect(body.id_token).toBeUndefined();
    expect(decodeJwt(body.access_token)).toMatchObject({
      sub: 'service',
      client_id: 'service',
      sub_kind: 'client',
      iss: ISSUER,
    });
  });

  it('gives the token exactly the resource asked for (RFC 8707), and refuses unknown ones (invalid_target)', async () => {
    const t = await setUp();
    const token = async (resource?: string) =>
      t.gatehouse.fetch(
        post(
          TOKEN,
          { grant_type: 'client_credentials', scope: 'read', ...(resource ? { resource } : {}) },
          SERVICE,
        ),
      );
    const forReports = await token(REPORTS_API);
    expect(forReports.status).toBe(200);
    expect(decodeJwt((await forReports.json()).access_token).aud).toBe(REPORTS_API);
    const byDefault = await token();
    expect(decodeJwt((await byDefault.json()).access_token).aud).toBe(`${ISSUER}/api/v1`);
    await expectError(await token('https://elsewhere.example.com/api'), 400, 'invalid_target');
    await expectError(await token('not a URI'), 400, 'invalid_target');
  });

  it('limits the scope to the registered scopes (invalid_scope) and refuses openid', async () => {
    const t = await setUp();
    for (const scope of ['write', 'read write', 'unknown', 'openid']) {
      await expectError(
        await t.gatehouse.fetch(post(TOKEN, { grant_type: 'client_credentials', scope }, SERVICE)),
        400,
        'invalid_scope',
      );
    }
    // Without a scope: the instance's default scope (empty here).
    const none = await t.gatehouse.fetch(post(TOKEN, { grant_type: 'client_credentials' }, SERVICE));
    expect((await none.json()).scope).toBe('');
  });

  it('is refused to clients not registered for it and to public clients (unauthorized_client)', async () => {
    const t = await setUp();
    await expectError(
      await t.gatehouse.fetch(
        post(
          TOKEN,
          { grant_type: 'client_credentials' },
          { Authorization: basic('demo-client', 'demo-secret') },
        ),
      ),
      400,
      'unauthorized_client',
    );
    await expectError(
      await t.gatehouse.fetch(post(TOKEN, { grant_type: 'client_credentials', client_id: 'public-service' })),
      400,
      'unauthorized_client',
    );
    // And the service cannot use the other grants.
    await expectError(
      await t.gatehouse.fetch(post(TOKEN, { grant_type: 'refresh_token', refresh_token: 'x' }, SERVICE)),
      400,
      'unauthorized_client',
    );
  });

  it('introspects as the client itself and revokes only by its own client', async () => {
    const t = await setUp();
    const token = await clientToken(t);
    const introspect = async (auth: Record<string, string>) =>
      (await t.gatehouse.fetch(post('/oauth2/v1/introspect', { token }, auth))).json();
    expect(await introspect(SERVICE)).toMatchObject({
      active: true,
      sub: 'service',
      client_id: 'service',
      sub_kind: 'client',
      scope: 'read',
    });
    const other = { Authorization: basic('other-client', 'other-secret') };
    expect(await introspect(other)).toEqual({ active: false });
    await expectError(
      await t.gatehouse.fetch(post('/oauth2/v1/revoke', { token }, other)),
      400,
      'invalid_grant',
    );
    expect((await introspect(SERVICE)).active).toBe(true);
    expect((await t.gatehouse.fetch(post('/oauth2/v1/revoke', { token }, SERVICE))).status).toBe(200);
    expect(await introspect(SERVICE)).toEqual({ active: false });
  });
});

describe('operations accepting users, clients or both (`subjects`)', () => {
  const handler = async (_request: Request, caller: { subject: unknown }) => Response.json(caller.subject);

  it('reports the client caller, and accepts it only where the operation lists clients', async () => {
    const t = await setUp();
    const api = defineOperations(t.gatehouse, {
      'POST /users-only': { schemes: ['bearer', 'session'], handler },
      'POST /clients-only': { schemes: ['bearer'], subjects: ['client'], handler },
      'POST /both': { schemes: ['bearer', 'session'], subjects: ['user', 'client'], scope: 'read', handler },
    });
    const clientTokenValue = await clientToken(t);
    const { access_token: userToken } = await issueTokens(t, 'read');

    const both = await api(bearerPost('/both', clientTokenValue));
    expect(both?.status).toBe(200);
    expect(await both?.json()).toEqual({ kind: 'client', clientId: 'service' });
    expect((await api(bearerPost('/both', userToken)))?.status).toBe(200);

    const usersOnly = await api(bearerPost('/users-only', clientTokenValue));
    expect(usersOnly?.status).toBe(403);
    expect(usersOnly?.headers.get('www-authenticate')).toMatch(/error="insufficient_scope"/);
    expect((await api(bearerPost('/users-only', userToken)))?.status).toBe(200);

    expect((await api(bearerPost('/clients-only', clientTokenValue)))?.status).toBe(200);
    expect((await api(bearerPost('/clients-only', userToken)))?.status).toBe(403);
    expect((await api(new Request(`${ISSUER}/clients-only`, { method: 'POST' })))?.status).toBe(401);

    const authenticated = await t.gatehouse.authenticate(bearerPost('/x', clientTokenValue), {
      schemes: ['bearer'],
      subjects: ['client'],
    });
    expect(authenticated.ok && authenticated.caller).toMatchObject({
      sub: 'service',
      subject: { kind: 'client', clientId: 'service' },
      clientId: 'service',
    });
  });

  it('does not let a client token read userinfo, where a client id could pass for a user id', async () => {
    const t = await setUp();
    const response = await t.gatehouse.fetch(bearerPost('/oauth2/v1/userinfo', await clientToken(t)));
    expect(response.status).toBe(403);
  });
});
