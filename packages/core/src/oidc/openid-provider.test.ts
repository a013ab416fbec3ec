/**
 * The checks of the OpenID Foundation's "Basic OP" certification profile that apply to the code flow
 * (module names in the test names), run in-process with oauth4webapi as the relying party: it
 * validates discovery, the authorization response (`iss`, `state`), and the ID token (`iss`, `aud`,
 * `exp`, `iat`, `nonce`, `auth_time` against `max_age`); signatures are checked with jose against the
 * published JWKS.
 */
import {
  type ClientRecord,
  generateKeys,
  hashClientSecret,
  memoryClientStore,
  memoryUserStore,
  type PrivateJwk,
} from '@gatehousejs/core';
import { createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { FakeBrowser, parseForm } from '../../test/browser-flow';
import {
  ISSUER,
  issueTokens,
  REDIRECT_URI,
  testClients,
  testClock,
  testHasher,
  testInstance,
  testKey,
} from '../../test/fixtures';

const LOGGED_OUT = 'http://localhost:3000/logged-out';
const CLAIMS = {
  name: 'Demo User',
  preferred_username: 'demo',
  email: 'demo@example.com',
  email_verified: true,
  phone_number: '+64 4 555 0100',
  address: { locality: 'Wellington', country: 'NZ' },
  employee_number: 7,
};

let rsaKey: PrivateJwk;
beforeAll(async () => {
  rsaKey = await generateKeys('RS256');
});

async function provider(rs256: PrivateJwk = rsaKey) {
  const clock = testClock(Date.now());
  const thirdParty: ClientRecord = {
    id: 'third-party',
    name: 'Third Party App',
    type: 'confidential',
    secretHash: await hashClientSecret('third-secret'),
    redirectUris: [REDIRECT_URI],
    postLogoutRedirectUris: [LOGGED_OUT],
  };
  const t = await testInstance({
    keys: [await testKey(), rs256],
    now: clock.now,
    scopes: ['openid', 'profile', 'email', 'address', 'phone', 'offline_access', 'read'],
    clients: memoryClientStore([...(await testClients()), thirdParty]),
    users: memoryUserStore(
      [
        {
          id: 'user-1',
          username: 'demo',
          passwordHash: await testHasher.hash('demo-password'),
          claims: CLAIMS,
        },
      ],
      { hasher: testHasher },
    ),
  });
  const customFetch = (url: string, init?: RequestInit) => t.gatehouse.fetch(new Request(url, init));
  const options = { [oauth.customFetch]: customFetch, [oauth.allowInsecureRequests]: true } as const;
  const issuer = new URL(ISSUER);
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...options }),
  );
  const client: oauth.Client = { client_id: 'third-party' };
  const auth = oauth.ClientSecretBasic('third-secret');
  const browser = new FakeBrowser(t.gatehouse);
  const jwks = (await (await customFetch(as.jwks_uri!)).json()) as JSONWebKeySet;

  /** An authorization request's URL for `params`, with PKCE, state and nonce. */
  function authorizationUrl(params: Record<string, string> = {}) {
    const url = new URL(as.authorization_endpoint!);
    const all = {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      scope: 'openid',
      state: 'st-1',
      nonce: 'n-0S6_WzA2Mj',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      ...params,
    };
    for (const [name, value] of Object.entries(all)) if (value !== '') url.searchParams.set(name, value);
    return url.href;
  }

  /** Drives the browser through login and consent pages until the redirect to the client. */
  async function authorize(params: Record<string, string> = {}) {
    let response = await browser.get(authorizationUrl(params));
    const pages: string[] = [];
    for (let step = 0; step < 5 && response.status === 200; step++) {
      const html = await response.text();
      const form = parseForm(html);
      if ('password' in form.fields || html.includes('name="password"')) {
        pages.push('login');
        response = await browser.submitAndFollow(html, { username: 'demo', password: 'demo-password' });
      } else {
        pages.push('consent');
        response = await browser.submitAndFollow(html, { decision: 'allow' });
      }
    }
    expect(response.status).toBe(303);
    return { location: new URL(response.headers.get('location')!), pages };
  }

  /** Exchanges the code of a callback, validating the ID token as a relying party does. */
  async function exchange(location: URL, expectations: { nonce?: string; maxAge?: number } = {}) {
    const callback = oauth.validateAuthResponse(as, client, location, 'st-1');
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      auth,
      callback,
      REDIRECT_URI,
      'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
      options,
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response, {
      expectedNonce: expectations.nonce ?? 'n-0S6_WzA2Mj',
      requireIdToken: true,
      ...(expectations.maxAge === undefined ? {} : { maxAge: expectations.maxAge }),
    });
    return { tokens, claims: oauth.getValidatedIdTokenClaims(tokens)! };
  }

  return { t, clock, as, client, auth, options, browser, jwks, authorizationUrl, authorize, exchange };
}

describe('OpenID Provider, Basic OP checks (code flow)', () => {
  it('oidcc-discovery-endpoint-verification: the document is where Discovery puts it, and consistent', async () => {
    const p = await provider();
    expect(p.as.issuer).toBe(ISSUER);
    expect(p.as.id_token_signing_alg_values_supported).toContain('RS256');
    expect(p.as.scopes_supported).toContain('openid');
    expect(p.as.response_types_supported).toEqual(['code']);
    expect(p.as.end_session_endpoint).toBe(`${ISSUER}/oauth2/v1/end-session`);
    const oauthDoc = await (
      await p.t.gatehouse.fetch(
        new Request(`http://localhost:3000/.well-known/oauth-authorization-server/demo`),
      )
    ).json();
    const rootForm = await (
      await p.t.gatehouse.fetch(new Request(`http://localhost:3000/.well-known/openid-configuration/demo`))
    ).json();
    expect(rootForm).toEqual(p.as);
    for (const field of [
      'issuer',
      'authorization_endpoint',
      'token_endpoint',
      'userinfo_endpoint',
      'jwks_uri',
    ])
      expect(p.as[field], field).toBe((oauthDoc as Record<string, unknown>)[field]);
  });

  it('oidcc-server + oidcc-idtoken-signature: the code flow returns an RS256 ID token with the required claims', async () => {
    const p = await provider();
    const { location, pages } = await p.authorize();
    expect(pages).toEqual(['login', 'consent']);
    const { tokens, claims } = await p.exchange(location);
    expect(decodeProtectedHeader(tokens.id_token!).alg).toBe('RS256');
    const { payload } = await jwtVerify(tokens.id_token!, createLocalJWKSet(p.jwks), {
      algorithms: ['RS256'],
      issuer: ISSUER,
      audience: 'third-party',
    });
    expect(payload.sub).toBe('user-1');
    expect(claims).toMatchObject({ iss: ISSUER, sub: 'user-1', aud: 'third-party', nonce: 'n-0S6_WzA2Mj' });
    expect(typeof claims.auth_time).toBe('number');
    expect(typeof claims.sid).toBe('string');
    const digest = new Uint8Array(
      await crypto.subtle.digest('SHA-256', new TextEncoder().encode(tokens.access_token)),
    );
    expect(claims.at_hash).toBe(Buffer.from(digest.subarray(0, 16)).toString('base64url'));
    // Access tokens keep their own algorithm.
    expect(decodeProtectedHeader(tokens.access_token).alg).toBe('ES256');
  });

  it('oidcc-ensure-request-without-nonce-succeeds-for-code-flow: no nonce sent, none returned', async () => {
    const p = await provider();
    const { location } = await p.authorize({ nonce: '' });
    const { claims } = await p.exchange(location, { nonce: oauth.expectNoNonce as never });
    expect(claims).not.toHaveProperty('nonce');
  });

  it('oidcc-userinfo-get / -post-header: userinfo answers the ID token sub, GET and POST', async () => {
    const p = await provider();
    const { location } = await p.authorize({ scope: 'openid profile' });
    const { tokens, claims } = await p.exchange(location);
    const response = await oauth.userInfoRequest(p.as, p.client, tokens.access_token, p.options);
    const info = await oauth.processUserInfoResponse(p.as, p.client, claims.sub, response);
    expect(info).toEqual({ sub: 'user-1', name: 'Demo User', preferred_username: 'demo' });
    const posted = await p.t.gatehouse.fetch(
      new Request(p.as.userinfo_endpoint!, {
        method: 'POST',
        headers: { Authorization: `Bearer ${tokens.access_token}` },
      }),
    );
    expect(await posted.json()).toEqual(info);
  });

  it('oidcc-scope-profile / -email / -address / -phone / -all: claims follow the granted scopes only', async () => {
    const cases: [string, Record<string, unknown>][] = [
      ['openid', {}],
      ['openid email', { email: 'demo@example.com', email_verified: true }],
      ['openid address', { address: CLAIMS.address }],
      ['openid phone', { phone_number: CLAIMS.phone_number }],
      [
        'openid profile email address phone',
        {
          name: 'Demo User',
          preferred_username: 'demo',
          email: 'demo@example.com',
          email_verified: true,
          address: CLAIMS.address,
          phone_number: CLAIMS.phone_number,
        },
      ],
    ];
    const p = await provider();
    for (const [scope, expected] of cases) {
      const { location } = await p.authorize({ scope });
      const { tokens } = await p.exchange(location);
      const info = await (await oauth.userInfoRequest(p.as, p.client, tokens.access_token, p.options)).json();
      expect(info, scope).toEqual({ sub: 'user-1', ...expected });
    }
  });

  it('remembered consent covers only the scopes it granted', async () => {
    const p = await provider();
    expect((await p.authorize({ scope: 'openid' })).pages).toEqual(['login', 'consent']);
    expect((await p.authorize({ scope: 'openid' })).pages).toEqual([]);
    expect((await p.authorize({ scope: 'openid email' })).pages).toEqual(['consent']);
    expect((await p.authorize({ scope: 'openid email' })).pages).toEqual([]);
  });

  it('the consent page names what the scopes reveal', async () => {
    const p = await provider();
    await p.authorize({ scope: 'openid' });
    const page = await (
      await p.browser.get(p.authorizationUrl({ scope: 'openid profile email offline_access' }))
    ).text();
    expect(page).toContain('Third Party App');
    expect(page).toContain('Your email address');
    expect(page).toContain('Your profile');
    expect(page).toContain('Stay connected');
  });

  it('oidcc-prompt-none-not-logged-in: login_required with state and iss, no page', async () => {
    const p = await provider();
    const response = await p.browser.get(p.authorizationUrl({ prompt: 'none' }));
    expect(response.status).toBe(303);
    const params = new URL(response.headers.get('location')!).searchParams;
    expect(Object.fromEntries(params)).toMatchObject({ error: 'login_required', state: 'st-1', iss: ISSUER });
    expect(() => oauth.validateAuthResponse(p.as, p.client, params, 'st-1')).toThrow(
      oauth.AuthorizationResponseError,
    );
  });

  it('oidcc-prompt-none-logged-in: a code without any page; consent_required when consent is missing', async () => {
    const p = await provider();
    await p.authorize({ scope: 'openid' });
    const { location, pages } = await p.authorize({ prompt: 'none' });
    expect(pages).toEqual([]);
    await p.exchange(location);
    const missing = await p.browser.get(p.authorizationUrl({ prompt: 'none', scope: 'openid email' }));
    expect(new URL(missing.headers.get('location')!).searchParams.get('error')).toBe('consent_required');
  });

  it('oidcc-prompt-login: the login page again despite a session, and the new auth_time', async () => {
    const p = await provider();
    const first = await p.exchange((await p.authorize()).location);
    p.clock.advance(2);
    const { location, pages } = await p.authorize({ prompt: 'login' });
    expect(pages).toEqual(['login']);
    const second = await p.exchange(location);
    expect((second.claims.auth_time as number) - (first.claims.auth_time as number)).toBe(2);
  });

  it('oidcc-max-age-1 / max_age=0: a session older than max_age logs in again; auth_time satisfies it', async () => {
    const p = await provider();
    await p.authorize();
    p.clock.advance(2);
    expect((await p.authorize({ max_age: '10000' })).pages).toEqual([]);
    const { location, pages } = await p.authorize({ max_age: '1' });
    expect(pages).toEqual(['login']);
    const { claims } = await p.exchange(location, { maxAge: 1 });
    expect(claims.auth_time).toBe(Math.floor(p.clock.now() / 1000));
    expect((await p.authorize({ max_age: '0' })).pages).toEqual(['login']);
  });

  it('oidcc-id-token-hint: prompt=none with the ID token of the session user succeeds, of another user fails', async () => {
    const p = await provider();
    const { tokens } = await p.exchange((await p.authorize()).location);
    const { location } = await p.authorize({ prompt: 'none', id_token_hint: tokens.id_token! });
    await p.exchange(location);
    const other = new FakeBrowser(p.t.gatehouse);
    const response = await other.get(p.authorizationUrl({ prompt: 'none', id_token_hint: tokens.id_token! }));
    expect(new URL(response.headers.get('location')!).searchParams.get('error')).toBe('login_required');
    const forged = await p.browser.get(
      p.authorizationUrl({ id_token_hint: `${tokens.id_token!.slice(0, -6)}AAAAAA` }),
    );
    expect(new URL(forged.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
  });

  it('oidcc-login-hint: the login page is prefilled', async () => {
    const p = await provider();
    const page = await (await p.browser.get(p.authorizationUrl({ login_hint: 'demo' }))).text();
    expect(parseForm(page).fields).not.toHaveProperty('username');
    expect(page).toMatch(/name="username" value="demo"/);
  });

  it('oidcc-unsigned-request-object-supported-correctly-or-rejected-as-unsupported and request_uri', async () => {
    const p = await provider();
    // An unsigned request object is rejected (RFC 9101 §10.2: the client registered no `none`), on a
    // page: its redirect URI is not trusted.
    const unsigned = await p.browser.get(p.authorizationUrl({ request: 'eyJhbGciOiJub25lIn0.e30.' }));
    expect(unsigned.status).toBe(400);
    expect(unsigned.headers.get('location')).toBeNull();
    expect(await unsigned.text()).toContain('invalid_request_object');
    // A request_uri other than a pushed request's: not supported, told to the client.
    const response = await p.browser.get(
      p.authorizationUrl({ request_uri: 'https://rp.example/request.jwt' }),
    );
    const params = new URL(response.headers.get('location')!).searchParams;
    expect(params.get('error')).toBe('request_uri_not_supported');
    expect(params.get('state')).toBe('st-1');
  });

  it('oidcc-ensure-request-with-unknown-parameter-succeeds, acr_values, ui_locales, claims, display: ignored', async () => {
    const p = await provider();
    const { location } = await p.authorize({
      unknown: 'x',
      acr_values: '1 2',
      ui_locales: 'se',
      claims_locales: 'se',
      display: 'popup',
      claims: '{"id_token":{"email":{"essential":true}}}',
    });
    await p.exchange(location);
  });

  it('prompt values: unsupported ones and none with another are invalid_request', async () => {
    const p = await provider();
    for (const prompt of ['select_account', 'none login']) {
      const response = await p.browser.get(p.authorizationUrl({ prompt }));
      expect(new URL(response.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
    }
  });

  it('issues a refresh token to an OpenID Connect request only with offline_access (Core §11); plain OAuth unchanged', async () => {
    const p = await provider();
    const online = await p.exchange((await p.authorize({ scope: 'openid profile' })).location);
    expect(online.tokens.access_token).toBeTruthy();
    expect(online.tokens.id_token).toBeTruthy();
    expect(online.tokens.refresh_token).toBeUndefined();
    const offline = await p.exchange((await p.authorize({ scope: 'openid offline_access' })).location);
    expect(offline.tokens.refresh_token).toBeTruthy();
    // Without openid, a refresh token as RFC 6749 §4.1.4 allows, offline_access or not.
    const t = await testInstance();
    expect((await issueTokens(t, 'read')).refresh_token).toBeTruthy();
  });

  it('oidcc-refresh-token: a refreshed ID token has the same sub and the original auth_time, no nonce', async () => {
    const p = await provider();
    const { tokens, claims } = await p.exchange(
      (await p.authorize({ scope: 'openid offline_access' })).location,
    );
    p.clock.advance(30);
    const response = await oauth.refreshTokenGrantRequest(
      p.as,
      p.client,
      p.auth,
      tokens.refresh_token!,
      p.options,
    );
    const refreshed = await oauth.processRefreshTokenResponse(p.as, p.client, response);
    const again = oauth.getValidatedIdTokenClaims(refreshed)!;
    expect(again.sub).toBe(claims.sub);
    expect(again.auth_time).toBe(claims.auth_time);
    expect(again.sid).toBe(claims.sid);
    expect(again).not.toHaveProperty('nonce');
  });

  it('oidcc-codereuse: a code is good once, and the ID token is not issued twice', async () => {
    const p = await provider();
    const { location } = await p.authorize();
    await p.exchange(location);
    await expect(p.exchange(location)).rejects.toThrow();
  });

  it('no ID token without openid', async () => {
    const p = await provider();
    const { location } = await p.authorize({ scope: 'read', nonce: '' });
    const callback = oauth.validateAuthResponse(p.as, p.client, location, 'st-1');
    const response = await oauth.authorizationCodeGrantRequest(
      p.as,
      p.client,
      p.auth,
      callback,
      REDIRECT_URI,
      'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
      p.options,
    );
    expect(await response.json()).not.toHaveProperty('id_token');
  });
});

describe('RP-Initiated Logout 1.0', () => {
  async function signedIn() {
    const p = await provider();
    const { tokens } = await p.exchange((await p.authorize()).location);
    const endSession = (params: Record<string, string>) =>
      `${p.as.end_session_endpoint}?${new URLSearchParams(params)}`;
    const promptNone = async () =>
      new URL(
        (await p.browser.get(p.authorizationUrl({ prompt: 'none' }))).headers.get('location')!,
      ).searchParams.get('error');
    return { ...p, idToken: tokens.id_token!, endSession, promptNone };
  }

  it('ends the session at once for its own relying party (even with an expired ID token) and lands on the registered URI with state', async () => {
    const p = await signedIn();
    for (let i = 0; i < 4; i++) {
      p.clock.advance(1000); // the session stays active, the ID token (3600 s) expires
      expect(await p.promptNone()).toBe(null);
    }
    const response = await p.browser.get(
      p.endSession({ id_token_hint: p.idToken, post_logout_redirect_uri: LOGGED_OUT, state: 'bye 1&2' }),
    );
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get('location')!);
    expect(location.origin + location.pathname).toBe(LOGGED_OUT);
    expect(location.searchParams.get('state')).toBe('bye 1&2');
    expect(p.browser.session()).toBeUndefined();
    expect(await p.promptNone()).toBe('login_required');
  });

  it('asks for confirmation without a hint, and the confirmation needs its CSRF token and this origin', async () => {
    const p = await signedIn();
    const page = await p.browser.get(
      p.endSession({ client_id: 'third-party', post_logout_redirect_uri: LOGGED_OUT, state: 's' }),
    );
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Third Party App');
    expect(page.headers.get('content-security-policy')).toContain('form-action');
    expect(page.headers.get('content-security-policy')).toContain('http://localhost:3000');
    expect(await p.promptNone()).toBe(null); // still signed in
    expect((await p.browser.submit(html, { csrf_token: 'x'.repeat(43) })).status).toBe(403);
    expect(
      (await p.browser.submit(html, {}, { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' }))
        .status,
    ).toBe(403);
    expect(await p.promptNone()).toBe(null);
    const confirmed = await p.browser.submit(html);
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get('location')).toBe(`${LOGGED_OUT}?state=s`);
    expect(await p.promptNone()).toBe('login_required');
  });

  it('refuses the ID token of another provider (another key) as a hint', async () => {
    const p = await signedIn();
    const other = await provider(await generateKeys('RS256'));
    const foreign = (await other.exchange((await other.authorize()).location)).tokens.id_token!;
    expect((await p.browser.get(p.endSession({ id_token_hint: foreign }))).status).toBe(400);
    expect(await p.promptNone()).toBe(null);
  });

  it('never redirects to an unregistered URI: the session still ends, on the signed-out page', async () => {
    const p = await signedIn();
    const response = await p.browser.get(
      p.endSession({
        id_token_hint: p.idToken,
        post_logout_redirect_uri: 'https://evil.example/',
        state: 's',
      }),
    );
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('You are signed out');
    expect(await p.promptNone()).toBe('login_required');
  });

  it('refuses a forged hint and an unknown client with an error page, never a redirect', async () => {
    const p = await signedIn();
    const requests: Record<string, string>[] = [
      { id_token_hint: `${p.idToken.slice(0, -6)}AAAAAA`, post_logout_redirect_uri: LOGGED_OUT },
      { client_id: 'nobody', post_logout_redirect_uri: LOGGED_OUT },
      { client_id: 'demo-client', id_token_hint: p.idToken },
    ];
    for (const params of requests) {
      const response = await p.browser.get(p.endSession(params));
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
    }
    expect(await p.promptNone()).toBe(null);
  });

  it('accepts a relying party POST of the same parameters', async () => {
    const p = await signedIn();
    const response = await p.browser.fetch(p.as.end_session_endpoint!, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Sec-Fetch-Site': 'cross-site' },
      body: new URLSearchParams({
        id_token_hint: p.idToken,
        post_logout_redirect_uri: LOGGED_OUT,
      }).toString(),
    });
    expect(response.status).toBe(303);
    expect(await p.promptNone()).toBe('login_required');
  });
});
