import type { FetchFunction } from '@gatehousejs/client';
import { describe, expect, it } from 'vitest';
import { FakeBrowser, logIn, ORIGIN } from '../../core/test/browser-flow';
import { harness, RESOURCE_PATH, signIn } from '../test/support';

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const part = (jwt: string, index: number) =>
  JSON.parse(atob(jwt.split('.')[index]!.replace(/-/g, '+').replace(/_/g, '/'))) as Record<string, unknown>;
const decodeJwt = (jwt: string) => part(jwt, 1);
const decodeProtectedHeader = (jwt: string) => part(jwt, 0);
/** RFC 7638 thumbprint of a P-256 public key. */
async function calculateJwkThumbprint(jwk: { crv: string; kty: string; x: string; y: string }) {
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  return b64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(canonical))));
}

/** The harness with a cookie jar playing the browser for the login page (as in full-flow.test.ts). */
async function browserHarness(instanceOptions: Parameters<typeof harness>[0] = {}) {
  const h = await harness(instanceOptions);
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

describe('DPoP and pushed requests in @gatehousejs/client', () => {
  it('a public client with dpop: true pushes, signs in, gets DPoP-bound tokens, calls the API with proofs and refreshes', async () => {
    const h = await browserHarness();
    const client = h.client({
      clientId: 'demo-spa',
      clientSecret: undefined,
      fetch: h.fetch,
      dpop: true,
      pushAuthorizationRequests: true,
    });
    const url = await client.authorizationUrl({ scope: 'read' });
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    const push = h.seen.find((r) => r.url.pathname === '/demo/oauth2/v1/par')!;
    expect(new URLSearchParams(push.body).get('dpop_jkt')).toMatch(/^[\w-]{43}$/);
    const redirect = await h.browser.follow(await logIn(h.browser, url.href));
    const tokens = await client.handleCallback(redirect.headers.get('location')!);
    expect(tokens.tokenType).toBe('DPoP');
    const jkt = (decodeJwt(tokens.accessToken).cnf as { jkt: string }).jkt;
    expect(jkt).toBe(new URLSearchParams(push.body).get('dpop_jkt'));

    const response = await client.fetch(RESOURCE_PATH);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ sub: 'user-1' });
    const call = h.seen.findLast((r) => r.url.pathname === RESOURCE_PATH)!;
    expect(call.authorization).toMatch(/^DPoP ey/);
    expect(call.credentials).toBe('omit');

    const refreshed = await client.refresh();
    expect(refreshed.tokenType).toBe('DPoP');
    expect((decodeJwt(refreshed.accessToken).cnf as { jkt: string }).jkt).toBe(jkt);
    expect((await client.fetch(RESOURCE_PATH)).status).toBe(200);
  });

  it('signs proofs with a key pair the server app provides', async () => {
    const h = await harness();
    const keyPair = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, [
      'sign',
      'verify',
    ])) as CryptoKeyPair;
    const client = h.client({ dpop: keyPair });
    const tokens = await signIn(h, client);
    expect(tokens.tokenType).toBe('DPoP');
    const jwk = await crypto.subtle.exportKey('jwk', keyPair.publicKey);
    expect((decodeJwt(tokens.accessToken).cnf as { jkt: string }).jkt).toBe(
      await calculateJwkThumbprint({ kty: jwk.kty!, crv: jwk.crv!, x: jwk.x!, y: jwk.y! }),
    );
    const token = h.seen.findLast((r) => r.url.pathname === '/demo/oauth2/v1/token')!;
    expect(token.authorization).toMatch(/^Basic /);
    expect((await client.fetch(RESOURCE_PATH)).status).toBe(200);
  });

  it('handles server nonces at the token endpoint and at resource servers transparently', async () => {
    const h = await harness({ dpop: { requireNonce: 'all', nonceLifetime: 10 } });
    const client = h.client({ dpop: true });
    const tokens = await signIn(h, client);
    expect(tokens.tokenType).toBe('DPoP');
    expect(h.tokenCalls('authorization_code')).toHaveLength(2); // use_dpop_nonce, then with the nonce
    // The nonce of the token endpoint serves the origin's API too, while it lasts.
    expect((await client.fetch(RESOURCE_PATH)).status).toBe(200);
    expect(h.seen.filter((r) => r.url.pathname === RESOURCE_PATH)).toHaveLength(1);
    // Once it is stale, the API asks for a new one (401 use_dpop_nonce) and the client retries.
    h.clock.advance(25);
    expect((await client.fetch(RESOURCE_PATH)).status).toBe(200);
    expect(h.seen.filter((r) => r.url.pathname === RESOURCE_PATH)).toHaveLength(3);
  });

  it('refuses a dpop option that is no key pair', async () => {
    const h = await harness();
    expect(() => h.client({ dpop: 'yes' as unknown as boolean })).toThrow(/dpop must be/);
  });

  it('keeps a bearer client as it was: no DPoP header, Bearer scheme', async () => {
    const h = await harness();
    const client = h.client();
    const tokens = await signIn(h, client);
    expect(tokens.tokenType).toBeUndefined();
    await client.fetch(RESOURCE_PATH);
    expect(h.seen.findLast((r) => r.url.pathname === RESOURCE_PATH)!.authorization).toMatch(/^Bearer /);
    expect(decodeProtectedHeader(tokens.accessToken).typ).toBe('at+jwt');
  });
});
