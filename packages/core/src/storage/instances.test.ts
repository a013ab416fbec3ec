import {
  ConfigurationError,
  createGatehouse,
  type GatehouseEvent,
  type GatehouseOptions,
  type GatehouseStorage,
  hashClientSecret,
  memoryClientStore,
  memoryEngine,
  memoryStorage,
  memoryUserStore,
} from '@gatehousejs/core';
import { hashSecret, kvSessionStore } from '@gatehousejs/core/engine';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  basic,
  ISSUER,
  PKCE_CHALLENGE,
  PKCE_VERIFIER,
  post,
  REDIRECT_URI,
  testClients,
  testHasher,
  testKey,
} from '../../test/fixtures.js';

/** An instance of the test issuer over `options.storage`, with the test clients and user. */
async function instance(options: Partial<GatehouseOptions> = {}) {
  const gatehouse = createGatehouse({
    issuer: ISSUER,
    keys: [await testKey()],
    clients: memoryClientStore(await testClients()),
    users: memoryUserStore(
      [{ id: 'user-1', username: 'demo', passwordHash: await testHasher.hash('demo-password') }],
      { hasher: testHasher },
    ),
    logger: { warn() {}, error() {} },
    ...options,
  });
  await gatehouse.ready();
  return gatehouse;
}

const refresh = (token: string, client = basic('demo-client', 'demo-secret')) =>
  post('/oauth2/v1/token', { grant_type: 'refresh_token', refresh_token: token }, { Authorization: client });

/** Stores a refresh token in `storage` (as a code redemption would) and returns the secret. */
async function storedRefreshToken(storage: GatehouseStorage, overrides: object = {}): Promise<string> {
  const secret = `rt-${crypto.randomUUID()}`;
  const now = Date.now();
  await storage.grants.saveRefreshToken({
    tokenHash: await hashSecret(secret),
    grantId: crypto.randomUUID(),
    clientId: 'demo-client',
    subject: { kind: 'user', userId: 'user-1' },
    scope: 'read',
    issuedAt: now,
    expiresAt: now + 3_600_000,
    ...overrides,
  });
  return secret;
}

describe('instances on one storage engine', () => {
  it('share records under one instance id (the issuer by default), as processes of one instance do', async () => {
    const engine = memoryEngine();
    const first = await instance({ storage: engine });
    const second = await instance({ storage: engine });
    const token = await storedRefreshToken(engine.instance(ISSUER));
    const rotated = await first.fetch(refresh(token));
    expect(rotated.status).toBe(200);
    const { refresh_token } = (await rotated.json()) as { refresh_token: string };
    expect((await second.fetch(refresh(refresh_token))).status).toBe(200);
  });

  it('keep apart under different instance ids, even with the same issuer, keys, clients and users', async () => {
    const engine = memoryEngine();
    const a = await instance({ storage: engine, instanceId: 'tenant-a' });
    const b = await instance({ storage: engine, instanceId: 'tenant-b' });
    const token = await storedRefreshToken(engine.instance('tenant-a'));
    const refused = await b.fetch(refresh(token));
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toBe('invalid_grant');
    expect((await a.fetch(refresh(token))).status).toBe(200);

    const now = Date.now();
    await kvSessionStore(engine.instance('tenant-a').kv).createSession({
      idHash: await hashSecret('session-of-a'),
      userId: 'user-1',
      createdAt: now,
      lastSeenAt: now,
      expiresAt: now + 60_000,
    });
    const withCookie = () =>
      new Request(`${ISSUER}/api/me`, { headers: { Cookie: 'gatehouse_session=session-of-a' } });
    expect((await a.authenticate(withCookie(), { schemes: ['session'] })).ok).toBe(true);
    expect((await b.authenticate(withCookie(), { schemes: ['session'] })).ok).toBe(false);
  });

  it('refuses an unusable instance id, and an instance id for stores that are not an engine', async () => {
    const options = { issuer: ISSUER, keys: [await testKey()], clients: memoryClientStore([]) };
    const users = memoryUserStore([]);
    expect(() => createGatehouse({ ...options, users, storage: memoryEngine(), instanceId: 'a b' })).toThrow(
      ConfigurationError,
    );
    expect(() => createGatehouse({ ...options, users, storage: memoryEngine(), instanceId: '{x}' })).toThrow(
      /brace/,
    );
    expect(() => createGatehouse({ ...options, users, storage: memoryStorage(), instanceId: 'x' })).toThrow(
      /only applies when `storage` is a storage engine/,
    );
  });
});

describe('registered clients', () => {
  it('are found after the host’s clients, and never shadow a configured client id', async () => {
    const storage = memoryStorage();
    const gatehouse = await instance({ storage });
    const now = Date.now();
    await storage.clients.saveClient({
      client: {
        id: 'registered-1',
        type: 'confidential',
        secretHash: await hashClientSecret('registered-secret'),
        redirectUris: [REDIRECT_URI],
      },
      registeredAt: now,
    });
    await storage.clients.saveClient({
      client: {
        id: 'demo-client',
        type: 'confidential',
        secretHash: await hashClientSecret('attacker-secret'),
        redirectUris: ['https://attacker.example/cb'],
      },
      registeredAt: now,
    });
    const token = await storedRefreshToken(storage, { clientId: 'registered-1' });
    expect((await gatehouse.fetch(refresh(token, basic('registered-1', 'registered-secret')))).status).toBe(
      200,
    );
    const ownToken = await storedRefreshToken(storage);
    expect((await gatehouse.fetch(refresh(ownToken, basic('demo-client', 'attacker-secret')))).status).toBe(
      401,
    );
    expect((await gatehouse.fetch(refresh(ownToken))).status).toBe(200);
  });
});

describe('per-token audience and subjects', () => {
  it('gives a grant’s access tokens the grant’s resources, which the instance’s own API refuses', async () => {
    const storage = memoryStorage();
    const gatehouse = await instance({ storage });
    const code = `code-${crypto.randomUUID()}`;
    const now = Date.now();
    await storage.grants.saveCode({
      codeHash: await hashSecret(code),
      clientId: 'demo-client',
      userId: 'user-1',
      grantId: crypto.randomUUID(),
      redirectUri: REDIRECT_URI,
      scope: 'read',
      audience: ['https://resource.example/api'],
      codeChallenge: PKCE_CHALLENGE,
      authTime: now - 5000,
      expiresAt: now + 60_000,
    });
    const redeemed = await gatehouse.fetch(
      post(
        '/oauth2/v1/token',
        { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: PKCE_VERIFIER },
        { Authorization: basic('demo-client', 'demo-secret') },
      ),
    );
    expect(redeemed.status).toBe(200);
    const tokens = (await redeemed.json()) as { access_token: string; refresh_token: string };
    expect(decodeJwt(tokens.access_token).aud).toBe('https://resource.example/api');
    const bearer = new Request(`${ISSUER}/api/me`, {
      headers: { Authorization: `Bearer ${tokens.access_token}` },
    });
    const refused = await gatehouse.authenticate(bearer, { schemes: ['bearer'] });
    expect(refused.ok ? 200 : refused.response.status).toBe(401);

    // The refresh token carries the resources and the authentication time through rotation.
    const stored = await storage.grants.findRefreshToken(await hashSecret(tokens.refresh_token), Date.now());
    expect(stored).toMatchObject({ audience: ['https://resource.example/api'], authTime: now - 5000 });
    const rotated = (await (await gatehouse.fetch(refresh(tokens.refresh_token))).json()) as {
      access_token: string;
      refresh_token: string;
    };
    expect(decodeJwt(rotated.access_token).aud).toBe('https://resource.example/api');
    expect(
      await storage.grants.findRefreshToken(await hashSecret(rotated.refresh_token), Date.now()),
    ).toMatchObject({
      audience: ['https://resource.example/api'],
      authTime: now - 5000,
    });
  });

  it('issues a client subject’s tokens with the client as sub, told apart from a user of that id', async () => {
    const storage = memoryStorage();
    const events: GatehouseEvent[] = [];
    const gatehouse = await instance({ storage, onEvent: (event) => events.push(event) });
    const token = await storedRefreshToken(storage, { subject: { kind: 'client', clientId: 'demo-client' } });
    const response = await gatehouse.fetch(refresh(token));
    expect(response.status).toBe(200);
    const { access_token } = (await response.json()) as { access_token: string };
    expect(decodeJwt(access_token)).toMatchObject({
      sub: 'demo-client',
      sub_kind: 'client',
      client_id: 'demo-client',
    });
    const request = new Request(`${ISSUER}/api/me`, { headers: { Authorization: `Bearer ${access_token}` } });
    const result = await gatehouse.authenticate(request, { schemes: ['bearer'], subjects: ['client'] });
    expect(result.ok && result.caller.subject).toEqual({ kind: 'client', clientId: 'demo-client' });
    // Operations accept users only unless they list clients.
    const usersOnly = await gatehouse.authenticate(request, { schemes: ['bearer'] });
    expect(usersOnly.ok || usersOnly.response.status).toBe(403);
    expect(events.at(-1)).toEqual({
      type: 'token.issued',
      clientId: 'demo-client',
      subject: { kind: 'client', clientId: 'demo-client' },
      grantType: 'refresh_token',
    });
  });
});
