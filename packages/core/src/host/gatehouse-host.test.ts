import {
  createGatehouseHost,
  type GatehouseHost,
  type GatehouseHostOptions,
  generateKeys,
  type HostedInstanceOptions,
  memoryClientStore,
  memoryEngine,
  memoryUserStore,
  type PrivateJwk,
  type StorageEngine,
} from '@gatehousejs/core';
import { hashSecret } from '@gatehousejs/core/engine';
import { defineOperations } from '@gatehousejs/core/protect';
import { describe, expect, it, vi } from 'vitest';
import { authorizeUrl, FakeBrowser, parseSetCookie } from '../../test/browser-flow';
import {
  basic,
  PKCE_CHALLENGE,
  PKCE_VERIFIER,
  REDIRECT_URI,
  testClients,
  testHasher,
  testKey,
  userBasic,
} from '../../test/fixtures';

const ORIGIN = 'http://localhost:3000';

let otherKey: Promise<PrivateJwk> | undefined;

/**
 * Two instances with the same client ids, secrets, usernames and passwords but their own keys and
 * user ids: what only isolation by instance tells apart.
 */
async function instanceOptions(name: string): Promise<HostedInstanceOptions> {
  otherKey ??= generateKeys('ES256');
  return {
    keys: [name === 'demo' ? await testKey() : await otherKey],
    clients: memoryClientStore(await testClients()),
    users: memoryUserStore(
      [
        {
          id: `user-${name}`,
          username: 'demo',
          passwordHash: await testHasher.hash('demo-password'),
          claims: { name: `User of ${name}` },
        },
      ],
      { hasher: testHasher },
    ),
    // Its Auth API tokens may ask userinfo, which answers only tokens granted openid (Core §5.3).
    authApi: { scope: 'openid' },
    logger: { warn() {}, error() {} },
  };
}

function testHost(overrides: Partial<GatehouseHostOptions> = {}) {
  const engine = memoryEngine();
  const resolve = vi.fn(async (name: string) =>
    name === 'demo' || name === 'acme' ? instanceOptions(name) : null,
  );
  const host = createGatehouseHost({
    origin: ORIGIN,
    storage: engine,
    resolve,
    logger: { warn() {}, error() {} },
    ...overrides,
  });
  return { host, engine, resolve };
}

async function authApiToken(host: GatehouseHost, name: string): Promise<string> {
  const response = await host.fetch(
    new Request(`${ORIGIN}/${name}/auth/v1/token`, {
      method: 'POST',
      headers: { Authorization: userBasic('demo', 'demo-password') },
    }),
  );
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
}

function userinfo(host: GatehouseHost, name: string, token: string): Promise<Response> {
  return host.fetch(
    new Request(`${ORIGIN}/${name}/oauth2/v1/userinfo`, { headers: { Authorization: `Bearer ${token}` } }),
  );
}

/** A code of `name`'s demo-client for its user, written where the authorize endpoint writes it. */
async function mintCode(engine: StorageEngine, name: string): Promise<string> {
  const code = `code-${crypto.randomUUID()}-${crypto.randomUUID()}`;
  await engine.instance(name).grants.saveCode({
    codeHash: await hashSecret(code),
    clientId: 'demo-client',
    userId: `user-${name}`,
    grantId: crypto.randomUUID(),
    redirectUri: REDIRECT_URI,
    scope: 'read',
    codeChallenge: PKCE_CHALLENGE,
    authTime: Date.now(),
    expiresAt: Date.now() + 60_000,
  });
  return code;
}

function tokenRequest(name: string, form: Record<string, string>): Request {
  return new Request(`${ORIGIN}/${name}/oauth2/v1/token`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: basic('demo-client', 'demo-secret'),
    },
    body: new URLSearchParams(form).toString(),
  });
}

const redeem = (name: string, code: string) =>
  tokenRequest(name, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT_URI,
    code_verifier: PKCE_VERIFIER,
  });

describe('createGatehouseHost', () => {
  it('serves each instance at /{name} with its own issuer, also at the RFC 8414 §3 path-inserted location', async () => {
    const { host } = testHost();
    for (const name of ['demo', 'acme']) {
      for (const url of [
        `${ORIGIN}/${name}/.well-known/oauth-authorization-server`,
        `${ORIGIN}/.well-known/oauth-authorization-server/${name}`,
      ]) {
        const response = await host.fetch(new Request(url));
        expect(response.status).toBe(200);
        expect(((await response.json()) as { issuer: string }).issuer).toBe(`${ORIGIN}/${name}`);
      }
    }
    const [demoKeys, acmeKeys] = await Promise.all(
      ['demo', 'acme'].map(async (name) => {
        const response = await host.fetch(new Request(`${ORIGIN}/${name}/oauth2/v1/keys`));
        return ((await response.json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
      }),
    );
    expect(demoKeys).not.toEqual(acmeKeys);
    expect(host.handles(`${ORIGIN}/acme/oauth2/v1/token`)).toBe(true);
    expect(host.handles(`${ORIGIN}/acme/api/v1/tickets`)).toBe(false);
    expect(host.handles(`${ORIGIN}/`)).toBe(false);
  });

  it('answers 404 for an unknown instance without touching storage, and asks again later', async () => {
    const engine = memoryEngine();
    const instance = vi.spyOn(engine, 'instance');
    const { host, resolve } = testHost({ storage: engine });
    const response = await host.fetch(new Request(`${ORIGIN}/nobody/oauth2/v1/keys`));
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: 'not_found' });
    expect(resolve).toHaveBeenCalledWith('nobody');
    expect(instance).not.toHaveBeenCalled();
    await host.fetch(new Request(`${ORIGIN}/nobody/oauth2/v1/keys`));
    expect(resolve).toHaveBeenCalledTimes(2); // not remembered: an instance created meanwhile is found
  });

  it.each([
    ['a dot segment', '..'],
    ['a dot first', '.hidden'],
    ['64 characters', 'a'.repeat(64)],
    ['a percent-encoded dot segment', '%2e%2e'],
    ['a space', 'a%20b'],
    ['a brace', 'a%7Bb'],
  ])('refuses an instance name with %s before asking the resolver', async (_what, segment) => {
    const { host, resolve } = testHost();
    const response = await host.fetch(new Request(`${ORIGIN}/${segment}/oauth2/v1/keys`));
    expect(response.status).toBe(404);
    expect(resolve).not.toHaveBeenCalled();
  });

  it('names are case-sensitive: /ACME is not /acme', async () => {
    const { host, resolve } = testHost();
    expect((await host.fetch(new Request(`${ORIGIN}/ACME/oauth2/v1/keys`))).status).toBe(404);
    expect(resolve).toHaveBeenCalledWith('ACME');
  });

  it('creates an instance once for concurrent first requests, and again after invalidate', async () => {
    const { host, resolve } = testHost();
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => host.fetch(new Request(`${ORIGIN}/acme/oauth2/v1/keys`))),
    );
    expect(responses.every((r) => r.status === 200)).toBe(true);
    expect(resolve).toHaveBeenCalledTimes(1);
    expect(host.invalidate('acme')).toBe(true);
    expect(host.liveInstances).toBe(0);
    await host.fetch(new Request(`${ORIGIN}/acme/oauth2/v1/keys`));
    expect(resolve).toHaveBeenCalledTimes(2);
  });

  it('rotates keys without a restart: invalidate picks up the resolver’s new key set', async () => {
    let keys = [await generateKeys('ES256')];
    const { host } = testHost({
      resolve: async () => ({ ...(await instanceOptions('acme')), keys }),
    });
    const kids = async () =>
      (
        (await (await host.fetch(new Request(`${ORIGIN}/acme/oauth2/v1/keys`))).json()) as {
          keys: { kid: string }[];
        }
      ).keys.length;
    expect(await kids()).toBe(1);
    keys = [await generateKeys('ES256'), ...keys];
    expect(await kids()).toBe(1); // still the live instance
    host.invalidate('acme');
    expect(await kids()).toBe(2);
  });

  it('keeps at most maxLiveInstances alive, evicting the least recently used', async () => {
    const resolve = vi.fn(async (name: string) => instanceOptions(name));
    const { host } = testHost({ maxLiveInstances: 2, resolve });
    const jwks = (name: string) => host.fetch(new Request(`${ORIGIN}/${name}/oauth2/v1/keys`));
    await jwks('t1');
    await jwks('t2');
    await jwks('t1'); // t1 is now the most recently used
    await jwks('t3'); // evicts t2
    expect(host.liveInstances).toBe(2);
    const calls = () => resolve.mock.calls.length;
    const before = calls();
    await jwks('t1');
    expect(calls()).toBe(before);
    await jwks('t2');
    expect(calls()).toBe(before + 1);
  });

  it('answers 503 when the resolver fails and a logged 500 for options the host decides', async () => {
    const error = vi.fn();
    const failing = createGatehouseHost({
      origin: ORIGIN,
      resolve: () => Promise.reject(new Error('database down')),
      logger: { warn() {}, error },
    });
    const response = await failing.fetch(new Request(`${ORIGIN}/acme/oauth2/v1/keys`));
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ error: 'temporarily_unavailable' });
    const misconfigured = createGatehouseHost({
      origin: ORIGIN,
      resolve: async () => ({ ...(await instanceOptions('acme')), issuer: 'https://elsewhere' }) as never,
      logger: { warn() {}, error },
    });
    const refused = await misconfigured.fetch(new Request(`${ORIGIN}/acme/oauth2/v1/keys`));
    expect(refused.status).toBe(500);
    expect(await refused.json()).toMatchObject({ error: 'server_error' });
    expect(error).toHaveBeenCalled();
  });

  it('refuses host options without resolve, origin or a storage engine', () => {
    expect(() => createGatehouseHost({} as never)).toThrow(/resolve/);
    expect(() => createGatehouseHost({ resolve: () => null })).toThrow(/origin/);
    expect(() => createGatehouseHost({ origin: `${ORIGIN}/path`, resolve: () => null })).toThrow(/origin/);
    expect(() => createGatehouseHost({ origin: ORIGIN, resolve: () => null, storage: {} as never })).toThrow(
      /storage engine/,
    );
  });

  describe('isolation between instances with identical client ids and usernames', () => {
    it('an access token of one instance is 401 invalid_token at the other’s userinfo and operations', async () => {
      const { host } = testHost();
      const token = await authApiToken(host, 'demo');
      const own = await userinfo(host, 'demo', token);
      expect(own.status).toBe(200);
      expect(await own.json()).toMatchObject({ sub: 'user-demo' });
      const foreign = await userinfo(host, 'acme', token);
      expect(foreign.status).toBe(401);
      expect(foreign.headers.get('www-authenticate')).toContain('error="invalid_token"');
      // Again, now that the token is in the shared verified-token cache.
      expect((await userinfo(host, 'acme', token)).status).toBe(401);

      const api = defineOperations(host, {
        'POST /api/v1/tickets': {
          schemes: ['bearer'],
          handler: async (_request, caller) => Response.json({ sub: caller.sub }),
        },
      });
      const call = (name: string) =>
        api(
          new Request(`${ORIGIN}/${name}/api/v1/tickets`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${token}` },
          }),
        );
      expect(await (await call('demo'))?.json()).toEqual({ sub: 'user-demo' });
      const refused = await call('acme');
      expect(refused?.status).toBe(401);
      expect(refused?.headers.get('www-authenticate')).toContain('error="invalid_token"');
      expect(await call('nobody')).toBeUndefined();

      const viaHost = (name: string) =>
        host.authenticate(
          new Request(`${ORIGIN}/${name}/api/v1/tickets`, { headers: { Authorization: `Bearer ${token}` } }),
          { schemes: ['bearer'] },
        );
      expect(await viaHost('demo')).toMatchObject({ ok: true, caller: { sub: 'user-demo' } });
      const foreignResult = await viaHost('acme');
      expect(foreignResult.ok).toBe(false);
      if (!foreignResult.ok) expect(foreignResult.response.status).toBe(401);
      const unknown = await viaHost('nobody');
      if (!unknown.ok) expect(unknown.response.status).toBe(404);
      expect(unknown.ok).toBe(false);
    });

    it('a code or refresh token of one instance is invalid_grant at the other; revocation stays local', async () => {
      const { host, engine } = testHost();
      const code = await mintCode(engine, 'demo');
      const foreign = await host.fetch(redeem('acme', code));
      expect(foreign.status).toBe(400);
      expect(await foreign.json()).toMatchObject({ error: 'invalid_grant' });
      const issued = await host.fetch(redeem('demo', code));
      expect(issued.status).toBe(200);
      const { refresh_token } = (await issued.json()) as { refresh_token: string };
      const refresh = await host.fetch(tokenRequest('acme', { grant_type: 'refresh_token', refresh_token }));
      expect(refresh.status).toBe(400);
      expect(await refresh.json()).toMatchObject({ error: 'invalid_grant' });

      // Revoking at acme the user id both know leaves demo's tokens working.
      const demoToken = await authApiToken(host, 'demo');
      const acmeToken = await authApiToken(host, 'acme');
      const acme = await host.instance('acme');
      await acme?.revokeUser('user-demo');
      await acme?.revokeUser('user-acme');
      expect((await userinfo(host, 'acme', acmeToken)).status).toBe(401);
      expect((await userinfo(host, 'demo', demoToken)).status).toBe(200);
    });

    it('rate limits of one instance do not lock out the other', async () => {
      const { host } = testHost({
        resolve: async (name) => ({
          ...(await instanceOptions(name)),
          rateLimit: { maxFailuresPerUsername: 2 },
        }),
      });
      const attempt = (name: string, password: string) =>
        host.fetch(
          new Request(`${ORIGIN}/${name}/auth/v1/token`, {
            method: 'POST',
            headers: { Authorization: userBasic('demo', password) },
          }),
        );
      for (let i = 0; i < 3; i++) await attempt('acme', 'wrong-password');
      expect((await attempt('acme', 'demo-password')).status).toBe(429);
      expect((await attempt('demo', 'demo-password')).status).toBe(200);
    });

    it('scopes the session cookie to /{name}, and a session of one instance is nobody at the other', async () => {
      const { host } = testHost();
      const browser = new FakeBrowser(host);
      const demoUrl = authorizeUrl().replace('http://localhost:3000/demo', `${ORIGIN}/demo`);
      const page = await browser.get(demoUrl);
      const login = await browser.submit(await page.text(), { username: 'demo', password: 'demo-password' });
      const resumed = await browser.follow(login); // the resume starts the session
      const session = resumed.headers
        .getSetCookie()
        .map(parseSetCookie)
        .find((c) => c.name === 'gatehouse_session');
      expect(session?.attributes.path).toBe('/demo');
      // The same cookie sent to acme (a browser would not: its Path is /demo) signs nobody in.
      const atAcme = await browser.get(
        authorizeUrl().replace('http://localhost:3000/demo', `${ORIGIN}/acme`),
      );
      expect(atAcme.status).toBe(200);
      expect(await atAcme.text()).toContain('name="password"');
      const withCookie = (name: string) =>
        host.authenticate(
          new Request(`${ORIGIN}/${name}/api/v1/tickets`, {
            headers: { Cookie: `gatehouse_session=${browser.session()}` },
          }),
          { schemes: ['session'] },
        );
      expect(await withCookie('demo')).toMatchObject({ ok: true, caller: { sub: 'user-demo' } });
      const api = await withCookie('acme');
      expect(api.ok).toBe(false);
      if (!api.ok) expect(api.response.status).toBe(401);
    });
  });

  it('bounds the verified-token cache for all instances together', async () => {
    const { host } = testHost({ verifiedTokenCacheSize: 1 });
    const demoToken = await authApiToken(host, 'demo');
    const acmeToken = await authApiToken(host, 'acme');
    // Each instance's token still verifies after the other's took the one slot.
    expect((await userinfo(host, 'demo', demoToken)).status).toBe(200);
    expect((await userinfo(host, 'acme', acmeToken)).status).toBe(200);
    expect((await userinfo(host, 'demo', demoToken)).status).toBe(200);
  });
});
