import { type FetchFunction, isGatehouseClientError } from '@gatehouse/client';
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
    const denied = await h.browser.submit(await consent.text(), { decision: 'deny' });
    const error = await client.handleCallback(denied.headers.get('location') ?? '').catch((e: unknown) => e);
    expect(isGatehouseClientError(error, 'authorization_error')).toBe(true);
    expect(error).toMatchObject({ error: 'access_denied' });
    expect(h.tokenCalls('authorization_code')).toHaveLength(0);
  });
});
