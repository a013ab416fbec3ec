import { createClient, isGatehouseClientError } from '@gatehousejs/client';
import { afterEach, describe, expect, it } from 'vitest';
import { ISSUER, REDIRECT_URI } from '../../core/test/fixtures';
import { harness, RESOURCE_PATH, signIn } from '../test/support';

const scope = globalThis as { window?: unknown; document?: unknown };

describe('createClient', () => {
  afterEach(() => {
    delete scope.window;
    delete scope.document;
  });

  it('refuses a clientSecret in a browser with a clear error', () => {
    for (const global of ['window', 'document'] as const) {
      scope[global] = {};
      const attempt = () =>
        createClient({
          baseUrl: ISSUER,
          clientId: 'demo-client',
          clientSecret: 'demo-secret',
          redirectUri: REDIRECT_URI,
        });
      expect(attempt).toThrowError(/must not be embedded in browser code/);
      try {
        attempt();
      } catch (error) {
        expect(isGatehouseClientError(error, 'secret_in_browser')).toBe(true);
      }
      delete scope[global];
    }
  });

  it('accepts a public client in a browser, and a secret outside one', () => {
    scope.window = {};
    expect(createClient({ baseUrl: ISSUER, clientId: 'demo-spa', redirectUri: REDIRECT_URI }).baseUrl).toBe(
      ISSUER,
    );
    delete scope.window;
    expect(createClient({ baseUrl: `${ISSUER}/`, clientId: 'demo-client', clientSecret: 's' }).baseUrl).toBe(
      ISSUER,
    );
  });

  it.each([
    [{ baseUrl: 'not a url' }, /not an absolute URL/],
    [{ baseUrl: 'http://auth.example.com/x' }, /https/],
    [{ baseUrl: 'https://auth.example.com/x?tenant=1' }, /query/],
    [{ clientId: '' }, /clientId/],
    [{ mode: 'bearer' }, /mode/],
    [{ redirectUri: '/callback' }, /redirectUri/],
    [{ autoRefresh: { skewSeconds: -1 } }, /skewSeconds/],
    [{ resourceOrigins: ['api.example.com'] }, /resourceOrigins/],
  ])('rejects unusable options %o with invalid_options', (override, message) => {
    const attempt = () => createClient({ baseUrl: ISSUER, clientId: 'demo-spa', ...(override as object) });
    expect(attempt).toThrowError(message);
    expect(() => attempt()).toThrowError(expect.objectContaining({ code: 'invalid_options' }));
  });
});

describe('revoke, introspect, logout', () => {
  it('revoke() revokes the refresh and the access token at the server and clears the store', async () => {
    const h = await harness();
    const client = h.client();
    const tokens = await signIn(h, client);
    expect(await client.introspect()).toMatchObject({
      active: true,
      sub: 'user-1',
      client_id: 'demo-client',
    });
    await client.revoke();
    expect(await client.getTokens()).toBeNull();
    const revocations = h.seen
      .filter((r) => r.url.pathname === '/demo/oauth2/v1/revoke')
      .map((r) => new URLSearchParams(r.body));
    expect(revocations.map((form) => [form.get('token'), form.get('token_type_hint')])).toEqual([
      [tokens.refreshToken, 'refresh_token'],
      [tokens.accessToken, 'access_token'],
    ]);
    expect(await client.introspect(tokens.accessToken)).toEqual({ active: false });
    expect(await client.introspect(tokens.refreshToken)).toEqual({ active: false });
    const afterwards = await client.fetch(RESOURCE_PATH, {
      auth: 'none',
      headers: { Authorization: `Bearer ${tokens.accessToken}` },
    });
    expect(afterwards.status).toBe(401);
  });

  it('introspect() is for confidential clients, and needs a token', async () => {
    const h = await harness();
    const spa = h.client({ clientId: 'demo-spa', clientSecret: undefined });
    expect(
      isGatehouseClientError(
        await spa.introspect('x').catch((e: unknown) => e),
        'confidential_client_required',
      ),
    ).toBe(true);
    expect(
      isGatehouseClientError(
        await h
          .client()
          .introspect()
          .catch((e: unknown) => e),
        'no_token',
      ),
    ).toBe(true);
  });

  it('revoke() of a public client sends its client_id and no secret', async () => {
    const h = await harness();
    const spa = h.client({ clientId: 'demo-spa', clientSecret: undefined });
    await signIn(h, spa, 'demo-spa');
    await spa.revoke();
    const last = h.seen.at(-1);
    expect(last?.authorization).toBeNull();
    expect(new URLSearchParams(last?.body).get('client_id')).toBe('demo-spa');
    expect(await spa.getTokens()).toBeNull();
  });

  it('logout() revokes and clears the store; outside a browser it sends nothing else', async () => {
    const h = await harness();
    const client = h.client();
    await signIn(h, client);
    await client.logout();
    expect(await client.getTokens()).toBeNull();
    expect(h.seen.at(-1)?.url.pathname).toBe('/demo/oauth2/v1/revoke');
  });

  it('logout() in a browser also ends the session with a same-origin POST {base}/logout carrying the cookie', async () => {
    const h = await harness();
    // What a browser adds by itself: the page's Origin on a POST.
    const client = h.client({
      fetch: (input, init) => {
        const request = new Request(input, init);
        request.headers.set('Origin', 'http://localhost:3000');
        return h.fetch(request);
      },
    });
    await signIn(h, client);
    scope.window = {};
    try {
      await client.logout();
    } finally {
      delete scope.window;
    }
    expect(h.seen.at(-1)).toMatchObject({ method: 'POST', credentials: 'include' });
    expect(h.seen.at(-1)?.url.href).toBe(`${ISSUER}/logout`);
  });

  it('logout() reports a refused session end as logout_failed', async () => {
    const h = await harness();
    const client = h.client();
    scope.window = {};
    try {
      // Without an Origin header (not a browser page), the server refuses: CSRF defence.
      const error = await client.logout().catch((e: unknown) => e);
      expect(isGatehouseClientError(error, 'logout_failed')).toBe(true);
      expect(error).toMatchObject({ status: 403 });
    } finally {
      delete scope.window;
    }
  });
});

describe('Auth API password login and session checks', () => {
  it('loginWithPassword() stores an Auth API token that client.fetch sends as the bearer token', async () => {
    const h = await harness();
    const client = h.client({ clientId: 'demo-spa', clientSecret: undefined, mode: 'oauth' });
    const tokens = await client.loginWithPassword('demo', 'demo-password');
    expect(tokens.refreshToken).toBeUndefined();
    expect(tokens.expiresAt).toBe(Math.floor(h.clock.now() / 1000) + 24 * 3600);
    const login = h.seen.at(-1);
    expect(login?.url.href).toBe(`${ISSUER}/auth/v1/token`);
    expect(login?.authorization).toBe(`Basic ${btoa('demo:demo-password')}`);
    expect(login?.body).toBe('');
    const response = await client.fetch(RESOURCE_PATH);
    expect(await response.json()).toMatchObject({ sub: 'user-1', scheme: 'bearer' });
  });

  it('loginWithPassword() reports bad credentials as login_failed, and refuses a colon in the username', async () => {
    const h = await harness();
    const client = h.client();
    const error = await client.loginWithPassword('demo', 'wrong').catch((e: unknown) => e);
    expect(isGatehouseClientError(error, 'login_failed')).toBe(true);
    expect(error).toMatchObject({ status: 401 });
    expect(await client.getTokens()).toBeNull();
    const before = h.seen.length;
    expect(
      isGatehouseClientError(
        await client.loginWithPassword('a:b', 'x').catch((e: unknown) => e),
        'invalid_argument',
      ),
    ).toBe(true);
    expect(h.seen).toHaveLength(before);
  });

  it('an expired Auth API token (no refresh token) is dropped: auto mode falls back to the session', async () => {
    const h = await harness();
    const client = h.client();
    await client.loginWithPassword('demo', 'demo-password');
    h.clock.advance(24 * 3600 + 1);
    await client.fetch(RESOURCE_PATH);
    expect(h.seen.at(-1)).toMatchObject({ authorization: null, credentials: 'include' });
    expect(await client.getTokens()).toBeNull();
  });

  it('revoke() after loginWithPassword() revokes the Auth API token at the Auth API, so the server refuses it', async () => {
    const h = await harness();
    const client = h.client({ clientId: undefined, clientSecret: undefined, mode: 'oauth' });
    const { accessToken, family } = await client.loginWithPassword('demo', 'demo-password');
    expect(family).toBe('auth_api');
    const asBearer = () =>
      h.fetch(`${ISSUER}/api/v1/whoami`, { headers: { Authorization: `Bearer ${accessToken}` } });
    expect((await asBearer()).status).toBe(200);
    await client.revoke();
    expect(h.seen.at(-1)).toMatchObject({ method: 'POST', authorization: `Bearer ${accessToken}` });
    expect(h.seen.at(-1)?.url.href).toBe(`${ISSUER}/auth/v1/token/revoke`);
    expect(await client.getTokens()).toBeNull();
    expect((await asBearer()).status).toBe(401);
  });

  it('a client without clientId uses the Auth API, and its OAuth operations say clientId is required', async () => {
    const h = await harness();
    const client = h.client({ clientId: undefined, clientSecret: undefined });
    await client.loginWithPassword('demo', 'demo-password');
    for (const attempt of [
      () => client.authorizationUrl(),
      () => client.introspect('t'),
      () => client.handleCallback(`${REDIRECT_URI}?code=c&state=s`),
    ]) {
      const error = await attempt().catch((e: unknown) => e);
      expect(isGatehouseClientError(error, 'invalid_options')).toBe(true);
      expect(String(error)).toMatch(/clientId is required for \w+/);
    }
    expect(() => h.client({ clientId: undefined })).toThrowError(/clientSecret without clientId/);
  });

  it('checkSession() asks userinfo with the cookie and Accept: application/json; no session → null', async () => {
    const h = await harness();
    const client = h.client();
    expect(await client.checkSession()).toBeNull();
    const request = h.seen.at(-1);
    expect(request).toMatchObject({ method: 'GET', credentials: 'include', authorization: null });
    expect(request?.url.href).toBe(`${ISSUER}/oauth2/v1/userinfo`);
  });
});
