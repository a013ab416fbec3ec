import { hashClientSecret, memoryClientStore } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { authorizeUrl, callbackParams, FakeBrowser, logIn, parseForm } from '../../../test/browser-flow';
import {
  basic,
  ISSUER,
  PKCE_VERIFIER,
  post,
  REDIRECT_URI,
  testClients,
  testInstance,
} from '../../../test/fixtures';

/** A browser already logged in (session cookie set) through a first authorization. */
async function loggedIn(t: Awaited<ReturnType<typeof testInstance>>) {
  const browser = new FakeBrowser(t.gatehouse);
  const afterLogin = await logIn(browser, authorizeUrl());
  expect(afterLogin.status).toBe(303);
  await browser.follow(afterLogin); // the resume starts the session
  return browser;
}

async function exchange(
  t: Awaited<ReturnType<typeof testInstance>>,
  code: string,
  extra: Record<string, string> = {},
) {
  return t.gatehouse.fetch(
    post(
      '/oauth2/v1/token',
      { grant_type: 'authorization_code', code, code_verifier: PKCE_VERIFIER, ...extra },
      { Authorization: basic('demo-client', 'demo-secret') },
    ),
  );
}

describe('authorization endpoint: requests that cannot be redirected', () => {
  const cases: [string, Record<string, string | null>][] = [
    ['an unknown client', { client_id: 'nobody' }],
    ['a missing client_id', { client_id: null }],
    ['an unregistered redirect_uri', { redirect_uri: 'https://evil.example/callback' }],
    ['a redirect_uri with a trailing slash', { redirect_uri: `${REDIRECT_URI}/` }],
    ['a redirect_uri differing in case', { redirect_uri: REDIRECT_URI.replace('callback', 'Callback') }],
    ['a percent-encoded redirect_uri', { redirect_uri: REDIRECT_URI.replace('callback', '%63allback') }],
  ];
  for (const [name, params] of cases) {
    it(`shows a 400 HTML error page, never a redirect, for ${name}`, async () => {
      const t = await testInstance();
      const response = await t.gatehouse.fetch(new Request(authorizeUrl(params)));
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await response.text()).toContain('invalid_request');
    });
  }

  it('shows the error page for a repeated client_id or redirect_uri', async () => {
    const t = await testInstance();
    for (const name of ['client_id', 'redirect_uri']) {
      const url = new URL(authorizeUrl());
      url.searchParams.append(name, url.searchParams.get(name)!);
      const response = await t.gatehouse.fetch(new Request(url));
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
    }
  });

  it('requires redirect_uri when the client has several registered', async () => {
    const clients = await testClients();
    clients[0] = { ...clients[0]!, redirectUris: [REDIRECT_URI, 'http://localhost:3000/other'] };
    const t = await testInstance({ clients: memoryClientStore(clients) });
    const response = await t.gatehouse.fetch(new Request(authorizeUrl({ redirect_uri: null })));
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
  });
});

describe('authorization endpoint: errors redirected to the client', () => {
  const cases: [string, Record<string, string | null>, string][] = [
    ['response_type=token', { response_type: 'token' }, 'unsupported_response_type'],
    ['a missing response_type', { response_type: null }, 'invalid_request'],
    ['a malformed scope', { scope: 'read "bad"' }, 'invalid_scope'],
    [
      'a public client without PKCE',
      { client_id: 'demo-spa', code_challenge: null, code_challenge_method: null },
      'invalid_request',
    ],
    ['PKCE "plain"', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['a code_challenge without method (plain)', { code_challenge_method: null }, 'invalid_request'],
    ['a malformed code_challenge', { code_challenge: 'short' }, 'invalid_request'],
  ];
  for (const [name, params, error] of cases) {
    it(`redirects ${error} with state and iss for ${name}`, async () => {
      const t = await testInstance();
      const response = await t.gatehouse.fetch(new Request(authorizeUrl(params)));
      const query = callbackParams(response);
      expect(response.headers.get('location')!.startsWith(`${REDIRECT_URI}?`)).toBe(true);
      expect(query.get('error')).toBe(error);
      expect(query.get('error_description')).toBeTruthy();
      expect(query.get('state')).toBe('xyz');
      expect(query.get('iss')).toBe(ISSUER);
    });
  }

  it('redirects invalid_scope for a scope the instance does not know', async () => {
    const t = await testInstance({ scopes: ['read'] });
    const query = callbackParams(await t.gatehouse.fetch(new Request(authorizeUrl({ scope: 'admin' }))));
    expect(query.get('error')).toBe('invalid_scope');
  });

  it('redirects invalid_request for a repeated parameter other than client_id/redirect_uri', async () => {
    const t = await testInstance();
    const url = new URL(authorizeUrl());
    url.searchParams.append('scope', 'write');
    const query = callbackParams(await t.gatehouse.fetch(new Request(url)));
    expect(query.get('error')).toBe('invalid_request');
    expect(query.get('iss')).toBe(ISSUER);
  });

  it('redirects unauthorized_client for a client not allowed the code grant', async () => {
    const clients = await testClients();
    clients.push({
      id: 'refresh-only',
      type: 'confidential',
      secretHash: await hashClientSecret('x'),
      redirectUris: [REDIRECT_URI],
      grantTypes: ['refresh_token'],
    });
    const t = await testInstance({ clients: memoryClientStore(clients) });
    const query = callbackParams(
      await t.gatehouse.fetch(new Request(authorizeUrl({ client_id: 'refresh-only' }))),
    );
    expect(query.get('error')).toBe('unauthorized_client');
  });

  it('requires PKCE from confidential clients only under requirePkce "all"', async () => {
    const relaxed = await testInstance();
    const noPkce = authorizeUrl({ code_challenge: null, code_challenge_method: null });
    expect((await new FakeBrowser(relaxed.gatehouse).get(noPkce)).status).toBe(200); // the login page
    const strict = await testInstance({ requirePkce: 'all' });
    expect(callbackParams(await strict.gatehouse.fetch(new Request(noPkce))).get('error')).toBe(
      'invalid_request',
    );
  });

  it('sends no state when none was sent', async () => {
    const t = await testInstance();
    const query = callbackParams(
      await t.gatehouse.fetch(new Request(authorizeUrl({ response_type: 'token', state: null }))),
    );
    expect(query.has('state')).toBe(false);
    expect(query.get('iss')).toBe(ISSUER);
  });

  it('refuses a state with a control character, and still echoes it exactly (RFC 6749 §4.1.2.1)', async () => {
    const t = await testInstance();
    for (const state of ['a\u0001b', 'tab\there', 'nul\u0000', 'line\nbreak', 'c1\u0085']) {
      for (const request of [
        new Request(authorizeUrl({ state })),
        new Request(`${ISSUER}/oauth2/v1/authorize`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URL(authorizeUrl({ state })).searchParams.toString(),
        }),
      ]) {
        const response = await t.gatehouse.fetch(request);
        const query = callbackParams(response);
        expect(query.get('error')).toBe('invalid_request');
        expect(query.get('error_description')).toMatch(/state.{1,2}parameter contains a control character/);
        expect(query.get('state')).toBe(state);
        // Percent-encoded in the Location, never raw: only visible ASCII.
        expect(response.headers.get('location')).toMatch(/^[!-~]+$/);
      }
    }
  });

  it('echoes a state with spaces or beyond ASCII exactly on every error redirect', async () => {
    const t = await testInstance();
    for (const state of ['a b  c ', 'état ✓ 日本語 🙂 & = + % #']) {
      const errors: [Record<string, string>, string][] = [
        [{ response_type: 'token' }, 'unsupported_response_type'],
        [{ scope: 'bad\\scope' }, 'invalid_scope'],
        [{ code_challenge_method: 'plain' }, 'invalid_request'],
        [{ prompt: 'none' }, 'login_required'], // after validation: nobody is signed in
      ];
      for (const [params, error] of errors) {
        const query = callbackParams(
          await t.gatehouse.fetch(new Request(authorizeUrl({ ...params, state }))),
        );
        expect(query.get('error')).toBe(error);
        expect(query.get('state')).toBe(state);
      }
    }
  });

  it('refuses a state over 2,048 characters without echoing it, and takes one of 2,048', async () => {
    const t = await testInstance();
    const tooLong = callbackParams(
      await t.gatehouse.fetch(new Request(authorizeUrl({ state: 's'.repeat(2049) }))),
    );
    expect(tooLong.get('error')).toBe('invalid_request');
    expect(tooLong.get('error_description')).toBe('The state is longer than 2048 characters.');
    expect(tooLong.has('state')).toBe(false);
    const longest = 's'.repeat(2048);
    const refused = callbackParams(
      await t.gatehouse.fetch(new Request(authorizeUrl({ state: longest, prompt: 'none' }))),
    );
    expect(refused.get('error')).toBe('login_required');
    expect(refused.get('state')).toBe(longest);
  });

  it('validates the whole request before showing the login page', async () => {
    const t = await testInstance();
    const response = await t.gatehouse.fetch(new Request(authorizeUrl({ scope: 'bad\\scope' })));
    expect(callbackParams(response).get('error')).toBe('invalid_scope'); // to the client, not to a page
  });
});

describe('authorization endpoint: success', () => {
  it('logs in, then redirects 303 with code, state and iss; the code is exchangeable once', async () => {
    const t = await testInstance();
    const browser = new FakeBrowser(t.gatehouse);
    const afterLogin = await logIn(browser, authorizeUrl());
    expect(afterLogin.status).toBe(303);
    expect(afterLogin.headers.get('location')).toMatch(`${ISSUER}/interaction/resume?interaction=`);
    const redirect = await browser.follow(afterLogin);
    expect(redirect.status).toBe(303);
    expect(redirect.headers.get('cache-control')).toBe('no-store');
    const query = callbackParams(redirect);
    expect(query.get('state')).toBe('xyz');
    expect(query.get('iss')).toBe(ISSUER);
    const code = query.get('code')!;
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const tokens = await exchange(t, code, { redirect_uri: REDIRECT_URI });
    expect(tokens.status).toBe(200);
    expect(((await tokens.json()) as { scope: string }).scope).toBe('read');
    expect((await exchange(t, code, { redirect_uri: REDIRECT_URI })).status).toBe(400);
  });

  it('refuses HEAD, which must be safe (RFC 9110 §9.2.1), instead of issuing a code', async () => {
    const t = await testInstance();
    const browser = await loggedIn(t);
    const head = await browser.fetch(authorizeUrl(), { method: 'HEAD' });
    expect(head.status).toBe(405);
    expect(head.headers.get('allow')).toBe('GET, POST');
    expect(head.headers.get('location')).toBeNull();
  });

  it('redirects a logged-in user straight to the client', async () => {
    const t = await testInstance();
    const browser = await loggedIn(t);
    const response = await browser.get(authorizeUrl({ state: 'second' }));
    expect(callbackParams(response).get('state')).toBe('second');
    expect(callbackParams(response).get('code')).toBeTruthy();
  });

  const states = [
    ['unicode', 'état ✓ 日本語 🙂 & = + % # ?'],
    ['600 characters', 'x'.repeat(300) + '~!*()\'"<>'.repeat(30) + 'y'.repeat(30)],
    ['spaces and plus signs', ' a+b  c '],
  ];
  for (const [name, state] of states) {
    it(`echoes a state of ${name} byte-exact`, async () => {
      const t = await testInstance();
      const browser = await loggedIn(t);
      const query = callbackParams(await browser.get(authorizeUrl({ state: state! })));
      expect(query.get('state')).toBe(state);
    });
  }

  it('keeps the query of a registered redirect URI', async () => {
    const registered = 'http://localhost:3000/cb?tenant=a%20b&x=1';
    const clients = await testClients();
    clients[0] = { ...clients[0]!, redirectUris: [registered] };
    const t = await testInstance({ clients: memoryClientStore(clients) });
    const browser = new FakeBrowser(t.gatehouse);
    const redirect = await browser.follow(await logIn(browser, authorizeUrl({ redirect_uri: registered })));
    const location = redirect.headers.get('location')!;
    expect(location.startsWith(`${registered}&code=`)).toBe(true);
    expect(new URL(location).searchParams.get('tenant')).toBe('a b');
  });

  it('uses the only registered redirect URI when omitted; the token request then may omit it', async () => {
    const t = await testInstance();
    const browser = await loggedIn(t);
    const first = callbackParams(await browser.get(authorizeUrl({ redirect_uri: null })));
    expect((await exchange(t, first.get('code')!)).status).toBe(200);
    const second = callbackParams(await browser.get(authorizeUrl({ redirect_uri: null })));
    expect((await exchange(t, second.get('code')!, { redirect_uri: REDIRECT_URI })).status).toBe(200);
    const third = callbackParams(await browser.get(authorizeUrl({ redirect_uri: null })));
    expect(
      (await exchange(t, third.get('code')!, { redirect_uri: 'http://localhost:3000/other' })).status,
    ).toBe(400);
  });

  it('requires the same redirect_uri at the token endpoint when the request sent one', async () => {
    const t = await testInstance();
    const browser = await loggedIn(t);
    const query = callbackParams(await browser.get(authorizeUrl()));
    const response = await exchange(t, query.get('code')!);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_grant');
  });

  it('accepts the authorization request as a POST form', async () => {
    const t = await testInstance();
    const browser = await loggedIn(t);
    const body = new URL(authorizeUrl({ state: 'posted' })).searchParams.toString();
    const response = await browser.fetch(`${ISSUER}/oauth2/v1/authorize`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body,
    });
    expect(callbackParams(response).get('state')).toBe('posted');
  });

  it('keeps the request on the server: the login form carries only the interaction and the CSRF token', async () => {
    const t = await testInstance();
    const browser = new FakeBrowser(t.gatehouse);
    const page = await browser.get(authorizeUrl({ unknown_param: 'ignored' }));
    expect(page.status).toBe(200);
    const { action, fields } = parseForm(await page.text());
    expect(action).toBe('/demo/login');
    expect(Object.keys(fields).sort()).toEqual(['csrf_token', 'interaction']);
  });

  it('stores the code by hash only, for authorizationCodeTtl seconds', async () => {
    const t = await testInstance({ authorizationCodeTtl: 30 });
    const browser = await loggedIn(t);
    const code = callbackParams(await browser.get(authorizeUrl())).get('code')!;
    const { hashSecret } = await import('@gatehousejs/core/engine');
    const record = await t.grants.findCode(await hashSecret(code), t.clock.now());
    expect(record).toMatchObject({
      clientId: 'demo-client',
      userId: 'user-1',
      redirectUri: REDIRECT_URI,
      scope: 'read',
    });
    expect(record!.expiresAt - t.clock.now()).toBe(30_000);
    t.clock.advance(31);
    expect((await exchange(t, code, { redirect_uri: REDIRECT_URI })).status).toBe(400);
  });
});
