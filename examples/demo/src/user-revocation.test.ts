import { type GatehouseStorage, memoryUserStore, pbkdf2Hasher, type UserStore } from '@gatehousejs/core';
import { hashSecret, kvSessionStore } from '@gatehousejs/core/engine';
import { createDemo, DEMO, demoApi } from '@gatehousejs/demo';
import { afterAll, describe, expect, it } from 'vitest';
import { storageEngines } from '../test/storage-engines';

/**
 * Issue 23 item 3: a deleted (or revoked) user's tokens and sessions stop working. Over the demo's
 * HTTP surface (its tickets operation, the token, introspection endpoints), on each storage engine
 * available: memory always, Redis and PostgreSQL when REDIS_URL / DATABASE_URL are set.
 */

const { engines, cleanUp } = storageEngines('gatehouse_userrev');
afterAll(cleanUp);

/** The demo on `storage`, with a clock the test moves and a user the test can delete. */
async function demoOn(storage: GatehouseStorage) {
  // Whole seconds plus 100 ms, so that "the same second" and "the next second" are unambiguous.
  let clock = Math.floor(Date.now() / 1000) * 1000 + 100;
  let deleted = false;
  const hasher = pbkdf2Hasher({ iterations: 1000 });
  const seeded = memoryUserStore(
    [
      {
        id: DEMO.user.id,
        username: DEMO.user.username,
        passwordHash: await hasher.hash(DEMO.user.password),
      },
    ],
    { hasher },
  );
  // The host's user store: once `deleted`, the user is gone (as after a DELETE in the host's database).
  const users: UserStore = {
    verifyPassword: async (username, password) =>
      deleted ? null : seeded.verifyPassword(username, password),
    findUser: async (userId) => (deleted ? null : seeded.findUser(userId)),
  };
  const demo = await createDemo({
    port: 3998,
    warn: () => {},
    // Short lifetimes: what a server engine keeps for this test expires within minutes.
    overrides: {
      storage,
      users,
      now: () => clock,
      refreshTokenTtl: 600,
      authApi: { tokenTtl: 600 },
      session: { absoluteTimeout: 600 },
    },
  });
  const { gatehouse, issuer } = demo;
  const api = demoApi(gatehouse);
  const clientBasic = `Basic ${btoa(`${DEMO.client.id}:${DEMO.client.secret}`)}`;
  const form = (path: string, params: Record<string, string>, authorization = clientBasic) =>
    gatehouse.fetch(
      new Request(`${issuer}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: authorization },
        body: new URLSearchParams(params),
      }),
    );

  return {
    advance(ms: number) {
      clock += ms;
    },
    deleteUser() {
      deleted = true;
    },
    revokeUser: () => gatehouse.revokeUser(DEMO.user.id, { reason: 'deleted' }),
    async authApiToken() {
      const response = await gatehouse.fetch(
        new Request(`${issuer}/auth/v1/token`, {
          method: 'POST',
          headers: { Authorization: `Basic ${btoa(`${DEMO.user.username}:${DEMO.user.password}`)}` },
        }),
      );
      expect(response.status).toBe(200);
      return ((await response.json()) as { access_token: string }).access_token;
    },
    /** An access and refresh token of the demo client: a code minted as the authorize endpoint would, exchanged. */
    async oauthTokens() {
      const code = `code-${crypto.randomUUID()}${crypto.randomUUID()}`;
      await storage.grants.saveCode({
        codeHash: await hashSecret(code),
        clientId: DEMO.client.id,
        userId: DEMO.user.id,
        grantId: crypto.randomUUID(),
        redirectUri: demo.redirectUri,
        scope: 'tickets:read offline_access',
        authTime: clock,
        expiresAt: clock + 60_000,
      });
      const response = await form('/oauth2/v1/token', {
        grant_type: 'authorization_code',
        code,
        redirect_uri: demo.redirectUri,
      });
      expect(response.status).toBe(200);
      return (await response.json()) as { access_token: string; refresh_token: string };
    },
    async sessionCookie() {
      const id = `session-${crypto.randomUUID()}${crypto.randomUUID()}`;
      await kvSessionStore(storage.kv).createSession({
        idHash: await hashSecret(id),
        userId: DEMO.user.id,
        createdAt: clock,
        lastSeenAt: clock,
        expiresAt: clock + 600_000,
      });
      return `gatehouse_session=${id}`;
    },
    /** The demo's tickets operation, with a bearer token or a session cookie. */
    async tickets(credentials: { token: string } | { cookie: string }) {
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      if ('token' in credentials) headers.Authorization = `Bearer ${credentials.token}`;
      else Object.assign(headers, { Cookie: credentials.cookie, Origin: demo.origin });
      const response = await api(
        new Request(`${issuer}/api/v1/tickets`, { method: 'POST', headers, body: '{"limit":1}' }),
      );
      return response!;
    },
    refresh: (refreshToken: string) =>
      form('/oauth2/v1/token', { grant_type: 'refresh_token', refresh_token: refreshToken }),
    async introspect(token: string) {
      return (await (await form('/oauth2/v1/introspect', { token })).json()) as { active: boolean };
    },
    async selfIntrospect(token: string) {
      const response = await gatehouse.fetch(
        new Request(`${issuer}/auth/v1/token/introspect`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}` },
        }),
      );
      return (await response.json()) as { active: boolean };
    },
  };
}

describe.each(engines)('a revoked or deleted user, on the %s engine', (_name, createStorage) => {
  it('revokeUser ends the Auth API and OAuth tokens, refresh tokens and sessions issued before it; later ones work', async () => {
    const d = await demoOn(await createStorage());
    const authApi = await d.authApiToken();
    const oauth = await d.oauthTokens();
    const cookie = await d.sessionCookie();
    expect((await d.tickets({ token: authApi })).status).toBe(200);
    expect((await d.tickets({ token: oauth.access_token })).status).toBe(200);
    expect((await d.tickets({ cookie })).status).toBe(200);

    d.advance(10);
    await d.revokeUser();

    for (const token of [authApi, oauth.access_token]) {
      const refused = await d.tickets({ token });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
      expect(await d.selfIntrospect(token)).toEqual({ active: false });
    }
    expect(await d.introspect(oauth.access_token)).toEqual({ active: false });
    expect(await d.introspect(oauth.refresh_token)).toEqual({ active: false });
    const refresh = await d.refresh(oauth.refresh_token);
    expect(refresh.status).toBe(400);
    expect(((await refresh.json()) as { error: string }).error).toBe('invalid_grant');
    expect((await d.tickets({ cookie })).status).toBe(401);

    // The next second: the user signs in again (e.g. after a password change).
    d.advance(1000);
    const newAuthApi = await d.authApiToken();
    const newOauth = await d.oauthTokens();
    expect((await d.tickets({ token: newAuthApi })).status).toBe(200);
    expect((await d.tickets({ token: newOauth.access_token })).status).toBe(200);
    expect((await d.tickets({ cookie: await d.sessionCookie() })).status).toBe(200);
    expect(await d.introspect(newOauth.access_token)).toMatchObject({ active: true });
    const refreshed = await d.refresh(newOauth.refresh_token);
    expect(refreshed.status).toBe(200);
  });

  it('refuses an access token issued in the same second as the mark, even after it, and not one a second later', async () => {
    const d = await demoOn(await createStorage());
    await d.revokeUser();
    d.advance(200);
    const sameSecond = await d.authApiToken();
    expect((await d.tickets({ token: sameSecond })).status).toBe(401);
    d.advance(1000);
    expect((await d.tickets({ token: await d.authApiToken() })).status).toBe(200);
  });

  it('reports a deleted user inactive at introspection and ends their refresh and session even without revokeUser; the bearer check needs the mark', async () => {
    const d = await demoOn(await createStorage());
    const authApi = await d.authApiToken();
    const oauth = await d.oauthTokens();
    const cookie = await d.sessionCookie();
    d.deleteUser();

    expect(await d.introspect(oauth.access_token)).toEqual({ active: false });
    expect(await d.introspect(oauth.refresh_token)).toEqual({ active: false });
    expect(await d.selfIntrospect(authApi)).toEqual({ active: false });
    expect((await d.tickets({ cookie })).status).toBe(401);
    expect((await d.refresh(oauth.refresh_token)).status).toBe(400);
    // The hot path does not look users up: without the mark the token passes until it expires…
    expect((await d.tickets({ token: authApi })).status).toBe(200);
    // …and from the host's revokeUser on (on deletion), it does not.
    await d.revokeUser();
    expect((await d.tickets({ token: authApi })).status).toBe(401);
    expect((await d.tickets({ token: oauth.access_token })).status).toBe(401);
  });
});
