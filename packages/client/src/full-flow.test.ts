import { type FetchFunction, isGatehouseClientError } from '@gatehousejs/client';
import { describe, expect, it } from 'vitest';
import { FakeBrowser, logIn, ORIGIN } from '../../core/test/browser-flow';
import { harness, RESOURCE_PATH } from '../test/support';

/**
 * The whole code flow through the real authorize endpoint and login page, with a cookie jar that
 * plays the browser: requests with `credentials: 'include'` carry its cookies and the headers a
 * same-origin page adds (`Sec-Fetch-Site`, and `Origin` on unsafe methods).
 */
async function browserHarness() {
  const h = await harness();
  const browser = new FakeBrowser(h.gatehouse);
  const fetch: FetchFunction = (input, init) => {
    const request = new Request(input, init);
    if (request.credentials === 'include') {
      if (browser.cookies.size > 0)
        request.headers.set('Cookie', [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
      request.headers.set('Sec-Fetch-Site', 'same-origin');
      if (request.method !== 'GET' && request.method !== 'HEAD') request.headers.set('Origin', ORIGIN);
    }
    return h.fetch(request);
  };
  return { ...h, browser, fetch };
}

describe('the full code flow (authorize endpoint, login page, session)', () => {
  it('signs in, calls the API with the token and with the session, and checks the session', async () => {
    const h = await browserHarness();
    const client = h.client({ clientId: 'demo-spa', clientSecret: undefined, fetch: h.fetch });
    const url = await client.authorizationUrl({ scope: 'read' });
    // Login → 303 back to the pending authorization request → 303 to the redirect URI.
    const redirect = await h.browser.follow(await logIn(h.browser, url.href));
    expect(redirect.status).toBe(303);
    const callback = redirect.headers.get('location') ?? '';
    expect(new URL(callback).searchParams.get('iss')).toBe(client.baseUrl);
    const tokens = await client.handleCallback(callback);
    expect(tokens.scope).toBe('read');

    expect(await (await client.fetch(RESOURCE_PATH)).json()).toMatchObject({
      sub: 'user-1',
      scheme: 'bearer',
    });
    const viaSession = await client.fetch(RESOURCE_PATH, {
      auth: 'session',
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(await viaSession.json()).toMatchObject({ sub: 'user-1', scheme: 'session' });
    expect(await client.checkSession()).toMatchObject({ sub: 'user-1' });
  });

  it('turns the user’s "Deny" on the consent page into authorization_error access_denied', async () => {
    const h = await browserHarness();
    // other-client is a third-party client: the user is asked for consent.
    const client = h.client({ clientId: 'other-client', clientSecret: 'other-secret', fetch: h.fetch });
    const url = await client.authorizationUrl({ scope: 'read' });
    const consent = await h.browser.follow(await logIn(h.browser, url.href));
    expect(consent.status).toBe(200);
    const denied = await h.browser.submitAndFollow(await consent.text(), { decision: 'deny' });
    const error = await client.handleCallback(denied.headers.get('location') ?? '').catch((e: unknown) => e);
    expect(isGatehouseClientError(error, 'authorization_error')).toBe(true);
    expect(error).toMatchObject({ error: 'access_denied' });
    expect(h.tokenCalls('authorization_code')).toHaveLength(0);
  });
});

describe('OpenID Connect sign-in and sign-out', () => {
  it('sends a nonce, validates the ID token, exposes its claims, keeps the user on refresh, and signs out at the end-session endpoint', async () => {
    const { generateKeys } = await import('@gatehousejs/core');
    const { testKey } = await import('../../core/test/fixtures');
    const h = await (async () => {
      const base = await harness({ keys: [await testKey(), await generateKeys('RS256')] });
      const browser = new FakeBrowser(base.gatehouse);
      return { ...base, browser };
    })();
    const client = h.client({ clientId: 'demo-client', fetch: h.fetch });
    const url = await client.authorizationUrl({
      scope: 'openid read offline_access',
      extraParams: { max_age: '600' },
    });
    expect(url.searchParams.get('nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const redirect = await h.browser.follow(await logIn(h.browser, url.href));
    const tokens = await client.handleCallback(redirect.headers.get('location') ?? '');
    expect(tokens.idToken?.split('.')).toHaveLength(3);
    const claims = await client.getClaims();
    expect(claims).toMatchObject({ sub: 'user-1', aud: 'demo-client', nonce: url.searchParams.get('nonce') });
    const refreshed = await client.refresh();
    expect(refreshed.claims?.sub).toBe('user-1');
    expect(refreshed.idToken).not.toBe(tokens.idToken);

    const signOut = await client.signOut({
      postLogoutRedirectUri: 'http://localhost:3000/callback',
      state: 'bye',
    });
    expect(signOut.origin + signOut.pathname).toBe(`${client.baseUrl}/oauth2/v1/end-session`);
    expect(signOut.searchParams.get('id_token_hint')).toBe(refreshed.idToken);
    expect(signOut.searchParams.get('client_id')).toBe('demo-client');
    expect(await client.getTokens()).toBeNull();
    const ended = await h.browser.get(signOut.href);
    expect(ended.status).toBe(200); // demo-client registers no post-logout URI here: the signed-out page
    expect(await ended.text()).toContain('You are signed out');
    expect(h.browser.session()).toBeUndefined();
  });

  it('refuses an ID token whose nonce is not the one sent', async () => {
    const { generateKeys } = await import('@gatehousejs/core');
    const { testKey } = await import('../../core/test/fixtures');
    const base = await harness({ keys: [await testKey(), await generateKeys('RS256')] });
    const browser = new FakeBrowser(base.gatehouse);
    const client = base.client({ clientId: 'demo-client', fetch: base.fetch });
    const url = await client.authorizationUrl({ scope: 'openid' });
    // The user agent is made to run another authorization request of the same client (other nonce).
    const tampered = new URL(url);
    tampered.searchParams.set('nonce', 'attacker-nonce');
    const redirect = await browser.follow(await logIn(browser, tampered.href));
    const error = await client
      .handleCallback(redirect.headers.get('location') ?? '')
      .catch((e: unknown) => e);
    expect(isGatehouseClientError(error, 'invalid_response')).toBe(true);
    expect((error as Error).message).toContain('nonce');
    expect(await client.getTokens()).toBeNull();
  });
});
