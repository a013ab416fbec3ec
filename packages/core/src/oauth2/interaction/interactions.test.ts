import { type GatehouseEvent, generateKeys, type PrivateJwk } from '@gatehousejs/core';
import { type HostUser, InteractionError } from '@gatehousejs/core/ui';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, callbackParams, FakeBrowser, ORIGIN } from '../../../test/browser-flow';
import {
  basic,
  ISSUER,
  PKCE_VERIFIER,
  post,
  REDIRECT_URI,
  type TestOptions,
  testInstance,
  testKey,
} from '../../../test/fixtures';

/*
 * Interactions (issue 29, item 1): the authorize step hands sign-in and consent to the host's page
 * and resumes with the host's result. The host side here is what a host's route does: build the
 * browser's request (its cookies) and call `gatehouse.interactions.details` / `finish`.
 */

const HOST_PAGE = `${ORIGIN}/demo/signin`;
const HOST_USERS = ['alice', 'bob'];
let rsa: PrivateJwk;
beforeAll(async () => {
  rsa = await generateKeys('RS256');
});

async function instance(overrides: TestOptions = {}) {
  const events: GatehouseEvent[] = [];
  const t = await testInstance({
    keys: [await testKey(), rsa],
    scopes: ['openid', 'profile', 'read'],
    // The host's users: Gatehouse only looks them up (no passwords: the host signs them in).
    users: { findUser: async (id) => (HOST_USERS.includes(id) ? { id, claims: { name: id } } : null) },
    authApi: { enabled: false },
    onEvent: (event) => events.push(event),
    ...overrides,
    interactions: { url: '/demo/signin', ...overrides.interactions },
  });
  return { ...t, events };
}
type Instance = Awaited<ReturnType<typeof instance>>;

/** The browser's request to the host's page (`url`), with the cookies it holds. */
function hostRequest(browser: FakeBrowser, url: string, init: RequestInit = {}): Request {
  const headers = new Headers(init.headers);
  if (browser.cookies.size > 0)
    headers.set('Cookie', [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
  return new Request(url, { ...init, headers });
}

/** Sends the browser to authorize; expects the 303 to the host's page and returns its URL. */
async function toHostPage(browser: FakeBrowser, params: Record<string, string | null> = {}): Promise<string> {
  const response = await browser.get(authorizeUrl(params));
  expect(response.status).toBe(303);
  const location = response.headers.get('location')!;
  expect(location.startsWith(`${HOST_PAGE}?interaction=`)).toBe(true);
  return location;
}

const ALICE: HostUser = { sub: 'alice', amr: ['pwd'], acr: 'urn:example:loa:1' };

async function rejection(promise: Promise<unknown>): Promise<InteractionError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof InteractionError) return error;
    throw error;
  }
  throw new Error('expected an InteractionError');
}

async function exchange(code: string) {
  const response = await (globalThis as { t?: Instance }).t!.gatehouse.fetch(
    post(
      '/oauth2/v1/token',
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: PKCE_VERIFIER },
      { Authorization: basic('demo-client', 'demo-secret') },
    ),
  );
  return response;
}

/** Signs `user` in on the host's page and follows the browser back: the final answer of the resume. */
async function signIn(t: Instance, browser: FakeBrowser, page: string, user: HostUser = ALICE) {
  const { location } = await t.gatehouse.interactions.finish(hostRequest(browser, page), { login: user });
  return browser.get(location);
}

describe('interactions: authorize hands the user to the host and resumes with its result', () => {
  it('sends a browser with no sign-in to the host page, shows what is asked, and issues the code after finish', async () => {
    const t = await instance();
    (globalThis as { t?: Instance }).t = t;
    const browser = new FakeBrowser(t.gatehouse);
    const page = await toHostPage(browser, {
      scope: 'openid profile',
      nonce: 'n-1',
      max_age: '300',
      login_hint: 'alice@example.com',
      ui_locales: 'fr en',
      acr_values: 'urn:example:loa:2',
    });
    expect(browser.cookies.get('gatehouse_session_interaction')).toMatch(/^[\w-]{43}$/);
    const details = await t.gatehouse.interactions.details(hostRequest(browser, page));
    expect(details).toMatchObject({
      step: 'login',
      client: { id: 'demo-client', name: 'Demo Client', firstParty: true },
      redirectHost: 'localhost:3000',
      scopes: ['openid', 'profile'],
      resources: [],
      prompt: [],
      maxAge: 300,
      loginHint: 'alice@example.com',
      uiLocales: ['fr', 'en'],
      acrValues: ['urn:example:loa:2'],
    });
    expect(details.id).toBe(new URL(page).searchParams.get('interaction'));
    expect(details.expiresAt).toBe(t.clock.now() + 600_000);

    t.clock.advance(5);
    const authTime = t.clock.now() - 2000;
    const { location, response } = await t.gatehouse.interactions.finish(hostRequest(browser, page), {
      login: { ...ALICE, authTime },
    });
    expect(response.status).toBe(303);
    expect(location).toBe(`${ISSUER}/interaction/resume?interaction=${details.id}`);
    const resumed = await browser.get(location);
    const callback = callbackParams(resumed);
    expect(callback.get('state')).toBe('xyz');
    expect(browser.session()).toBeDefined(); // Gatehouse's own session, from the host's sign-in
    const tokens = await exchange(callback.get('code')!);
    expect(tokens.status).toBe(200);
    const idToken = decodeJwt(((await tokens.json()) as { id_token: string }).id_token);
    expect(idToken).toMatchObject({
      sub: 'alice',
      nonce: 'n-1',
      auth_time: Math.floor(authTime / 1000),
      amr: ['pwd'],
      acr: 'urn:example:loa:1',
    });
    expect(t.events).toContainEqual({ type: 'interaction.started', clientId: 'demo-client', step: 'login' });
    expect(t.events).toContainEqual({ type: 'login.succeeded', userId: 'alice', via: 'interaction' });
  });

  it('is single use: a second finish and a replayed resume are refused, and never give a code', async () => {
    const t = await instance();
    const browser = new FakeBrowser(t.gatehouse);
    const page = await toHostPage(browser);
    const { location } = await t.gatehouse.interactions.finish(hostRequest(browser, page), { login: ALICE });
    const again = await rejection(
      t.gatehouse.interactions.finish(hostRequest(browser, page), { login: ALICE }),
    );
    expect(again.code).toBe('interaction_finished');
    expect((await rejection(t.gatehouse.interactions.details(hostRequest(browser, page)))).code).toBe(
      'interaction_finished',
    );
    expect(callbackParams(await browser.get(location)).get('code')).toBeTruthy();
    const replay = await browser.get(location);
    expect(replay.status).toBe(400);
    expect(replay.headers.get('location')).toBeNull();
    expect(replay.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await replay.text()).toContain('expired or was already used');
    // Gone after the resume: neither readable nor finishable.
    expect((await rejection(t.gatehouse.interactions.details(page.split('=')[1]!))).code).toBe(
      'interaction_not_found',
    );
    expect(t.events).toContainEqual({ type: 'interaction.refused', reason: 'interaction_not_found' });
  });

  it('expires after interactions.ttl: details, finish and resume are refused', async () => {
    const t = await instance({ interactions: { ttl: 60 } });
    const browser = new FakeBrowser(t.gatehouse);
    const page = await toHostPage(browser);
    t.clock.advance(61);
    expect((await rejection(t.gatehouse.interactions.details(hostRequest(browser, page)))).code).toBe(
      'interaction_not_found',
    );
    expect(
      (await rejection(t.gatehouse.interactions.finish(hostRequest(browser, page), { login: ALICE }))).code,
    ).toBe('interaction_not_found');

    // Finished in time, resumed too late.
    const page2 = await toHostPage(browser);
    const { location } = await t.gatehouse.interactions.finish(hostRequest(browser, page2), { login: ALICE });
    t.clock.advance(61);
    const late = await browser.get(location);
    expect(late.status).toBe(400);
    expect(late.headers.get('location')).toBeNull();
  });

  it('is bound to the browser that started it: another browser can neither read, finish nor resume it', async () => {
    const t = await instance();
    const victim = new FakeBrowser(t.gatehouse);
    const page = await toHostPage(victim);
    const attacker = new FakeBrowser(t.gatehouse);
    await toHostPage(attacker); // has a binding cookie of its own
    for (const browser of [attacker, new FakeBrowser(t.gatehouse)]) {
      expect((await rejection(t.gatehouse.interactions.details(hostRequest(browser, page)))).code).toBe(
        'interaction_wrong_browser',
      );
      const error = await rejection(
        t.gatehouse.interactions.finish(hostRequest(browser, page), { login: ALICE }),
      );
      expect(error.code).toBe('interaction_wrong_browser');
      expect(error.status).toBe(403);
    }
    // Finished by the victim's browser, the resume link is still useless elsewhere…
    const { location } = await t.gatehouse.interactions.finish(hostRequest(victim, page), { login: ALICE });
    const stolen = await attacker.get(location);
    expect(stolen.status).toBe(403);
    expect(stolen.headers.get('location')).toBeNull();
    expect(attacker.session()).toBeUndefined();
    // …and was not burnt by the attempt: the victim's browser continues.
    expect(callbackParams(await victim.get(location)).get('code')).toBeTruthy();
  });

  it('refuses forged references with a clear error, never a code', async () => {
    const t = await instance();
    const browser = new FakeBrowser(t.gatehouse);
    await toHostPage(browser);
    for (const forged of ['', 'x', 'A'.repeat(43), 'A'.repeat(44), '../../etc']) {
      const response = await browser.get(
        `${ISSUER}/interaction/resume?interaction=${encodeURIComponent(forged)}`,
      );
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect((await rejection(t.gatehouse.interactions.details(forged))).code).toBe('interaction_not_found');
    }
  });

  it('cannot be finished for another user, nor with scopes or resources that were not asked for', async () => {
    const t = await instance({
      interactions: { currentUser: () => ({ sub: 'alice', authTime: t.clock.now() }) },
    });
    const browser = new FakeBrowser(t.gatehouse);
    // other-client is third-party: alice, signed in at the host, must consent.
    const response = await browser.get(authorizeUrl({ client_id: 'other-client', scope: 'openid read' }));
    expect(response.status).toBe(303);
    const page = response.headers.get('location')!;
    const details = await t.gatehouse.interactions.details(hostRequest(browser, page));
    expect(details).toMatchObject({
      step: 'consent',
      subject: 'alice',
      client: { id: 'other-client', firstParty: false },
    });
    const wrongUser = await rejection(
      t.gatehouse.interactions.finish(hostRequest(browser, page), { login: { sub: 'mallory' }, consent: {} }),
    );
    expect(wrongUser.code).toBe('interaction_wrong_user');
    for (const consent of [{ scopes: ['openid', 'admin'] }, { resources: ['https://api.example.com'] }]) {
      const error = await rejection(t.gatehouse.interactions.finish(hostRequest(browser, page), { consent }));
      expect(error.code).toBe('interaction_invalid_result');
    }
    expect((await rejection(t.gatehouse.interactions.finish(hostRequest(browser, page), {}))).code).toBe(
      'interaction_invalid_result',
    );
    // Nothing above finished it: the right answer still does, for the client of the request only.
    const { location } = await t.gatehouse.interactions.finish(hostRequest(browser, page), {
      consent: { scopes: ['openid'] },
    });
    const resumed = await browser.get(`${location}&client_id=demo-client&scope=read`);
    const code = callbackParams(resumed).get('code')!;
    expect((await exchange(code)).status).toBe(400); // demo-client cannot redeem other-client's code
  });

  it('refuses the resume of a consent when the host has signed another user in meanwhile', async () => {
    let user: HostUser | null = null;
    const t = await instance({ interactions: { currentUser: () => user } });
    user = { sub: 'alice', authTime: t.clock.now() };
    const browser = new FakeBrowser(t.gatehouse);
    const page = (await browser.get(authorizeUrl({ client_id: 'other-client' }))).headers.get('location')!;
    const { location } = await t.gatehouse.interactions.finish(hostRequest(browser, page), { consent: {} });
    user = { sub: 'bob', authTime: t.clock.now() };
    const resumed = await browser.get(location);
    expect(resumed.status).toBe(403);
    expect(resumed.headers.get('location')).toBeNull();
  });

  it('prompt=none never reaches the host: login_required and consent_required at the redirect URI', async () => {
    let user: HostUser | null = null;
    const t = await instance({ interactions: { currentUser: () => user } });
    const browser = new FakeBrowser(t.gatehouse);
    const noUser = callbackParams(await browser.get(authorizeUrl({ prompt: 'none' })));
    expect(noUser.get('error')).toBe('login_required');
    user = { sub: 'alice', authTime: t.clock.now() };
    const noConsent = callbackParams(
      await browser.get(authorizeUrl({ prompt: 'none', client_id: 'other-client' })),
    );
    expect(noConsent.get('error')).toBe('consent_required');
    expect(t.events.filter((e) => e.type === 'interaction.started')).toEqual([]);
    expect(browser.cookies.has('gatehouse_session_interaction')).toBe(false);
  });

  it('passes a consent denial to the client as access_denied', async () => {
    const t = await instance();
    const browser = new FakeBrowser(t.gatehouse);
    const page = await toHostPage(browser, { client_id: 'other-client' });
    const { location } = await t.gatehouse.interactions.finish(hostRequest(browser, page), {
      login: ALICE,
      consent: { denied: true },
    });
    const callback = callbackParams(await browser.get(location));
    expect(callback.get('error')).toBe('access_denied');
    expect(callback.get('code')).toBeNull();
  });

  it('asks consent of a third-party client after sign-in, then remembers it', async () => {
    const t = await instance();
    const browser = new FakeBrowser(t.gatehouse);
    const page = await toHostPage(browser, { client_id: 'other-client', scope: 'openid read' });
    const afterLogin = await signIn(t, browser, page);
    expect(afterLogin.status).toBe(303);
    const consentPage = afterLogin.headers.get('location')!;
    expect(consentPage.startsWith(`${HOST_PAGE}?interaction=`)).toBe(true);
    expect(await t.gatehouse.interactions.details(hostRequest(browser, consentPage))).toMatchObject({
      step: 'consent',
      subject: 'alice',
      scopes: ['openid', 'read'],
    });
    const { location } = await t.gatehouse.interactions.finish(hostRequest(browser, consentPage), {
      consent: {},
    });
    expect(callbackParams(await browser.get(location)).get('code')).toBeTruthy();
    // Remembered, on Gatehouse's session: the next request needs no page.
    const next = await browser.get(authorizeUrl({ client_id: 'other-client', scope: 'openid read' }));
    expect(callbackParams(next).get('code')).toBeTruthy();
  });
});

describe('id_token_hint with the host’s sign-in', () => {
  /** An ID token of this instance for `user`, through the code flow of its own browser. */
  async function idTokenOf(t: Instance, user: HostUser): Promise<string> {
    const browser = new FakeBrowser(t.gatehouse);
    const code = callbackParams(
      await signIn(t, browser, await toHostPage(browser, { scope: 'openid' }), user),
    ).get('code')!;
    const response = await t.gatehouse.fetch(
      post(
        '/oauth2/v1/token',
        { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: PKCE_VERIFIER },
        { Authorization: basic('demo-client', 'demo-secret') },
      ),
    );
    return ((await response.json()) as { id_token: string }).id_token;
  }

  it('sends the client login_required, with no code and no session, when another user than the hint names signs in', async () => {
    const t = await instance();
    const hint = await idTokenOf(t, ALICE);
    const browser = new FakeBrowser(t.gatehouse);
    const page = await toHostPage(browser, { scope: 'openid', id_token_hint: hint, state: 'for alice' });
    expect(await t.gatehouse.interactions.details(hostRequest(browser, page))).toMatchObject({
      step: 'login',
      subject: 'alice',
    });
    const resumed = await signIn(t, browser, page, { sub: 'bob' });
    const callback = callbackParams(resumed);
    expect(callback.get('error')).toBe('login_required');
    expect(callback.get('state')).toBe('for alice');
    expect(callback.get('code')).toBeNull();
    expect(browser.session()).toBeUndefined();
    expect(t.events).toContainEqual({ type: 'interaction.refused', reason: 'interaction_wrong_user' });
    expect(t.events).not.toContainEqual(expect.objectContaining({ type: 'login.succeeded', userId: 'bob' }));
    // The user the hint names gets the code.
    const again = await toHostPage(browser, { scope: 'openid', id_token_hint: hint });
    const code = callbackParams(await signIn(t, browser, again, ALICE)).get('code');
    expect(code).toBeTruthy();
  });
});

describe('interactions.currentUser: the host session is the source of truth', () => {
  it('gives a browser signed in at the host a code with no page, prompt=none included', async () => {
    const authTime = Date.UTC(2025, 11, 31, 23, 0);
    const t = await instance({
      interactions: {
        currentUser: (request) =>
          request.headers.get('cookie')?.includes('host=alice') ? { ...ALICE, authTime } : null,
      },
    });
    const browser = new FakeBrowser(t.gatehouse);
    browser.cookies.set('host', 'alice');
    for (const prompt of [null, 'none']) {
      const callback = callbackParams(await browser.get(authorizeUrl({ scope: 'openid', prompt })));
      const tokens = await (await exchangeWith(t, callback.get('code')!)).json();
      expect(decodeJwt((tokens as { id_token: string }).id_token)).toMatchObject({
        sub: 'alice',
        auth_time: Math.floor(authTime / 1000),
        amr: ['pwd'],
      });
    }
    expect(t.events.filter((e) => e.type === 'interaction.started')).toEqual([]);
  });

  it('sends the browser to the host again for prompt=login and an exceeded max_age, and refuses a stale sign-in', async () => {
    const t = await instance({
      interactions: { currentUser: () => ({ ...ALICE, authTime: t.clock.now() - 600_000 }) },
    });
    const browser = new FakeBrowser(t.gatehouse);
    for (const params of [{ prompt: 'login' }, { max_age: '60' }] as Record<string, string>[]) {
      const page = await toHostPage(browser, { scope: 'openid', ...params });
      const stale = await rejection(
        t.gatehouse.interactions.finish(hostRequest(browser, page), {
          login: { ...ALICE, authTime: t.clock.now() - 600_000 },
        }),
      );
      expect(stale.code).toBe('interaction_stale_login');
      const { location } = await t.gatehouse.interactions.finish(hostRequest(browser, page), {
        login: ALICE,
      });
      const callback = callbackParams(await browser.get(location));
      expect(callback.get('code')).toBeTruthy();
    }
    // max_age satisfied by the host's session: no page.
    expect(callbackParams(await browser.get(authorizeUrl({ max_age: '3600' }))).get('code')).toBeTruthy();
  });

  it('ends Gatehouse’s own session when the host says nobody is signed in', async () => {
    let user: HostUser | null | undefined;
    const t = await instance({ interactions: { currentUser: () => user } });
    const browser = new FakeBrowser(t.gatehouse);
    user = null;
    const page = await toHostPage(browser);
    await signIn(t, browser, page);
    expect(browser.session()).toBeDefined();
    const session = `gatehouse_session=${browser.session()}`;
    user = undefined; // the host does not know: Gatehouse's session decides
    expect(callbackParams(await browser.get(authorizeUrl())).get('code')).toBeTruthy();
    user = null; // signed out at the host
    await toHostPage(browser);
    user = undefined;
    const after = await t.gatehouse.fetch(
      new Request(authorizeUrl(), { headers: { Cookie: session, Accept: 'text/html' } }),
    );
    expect(after.headers.get('location')).toMatch(/\/demo\/signin\?interaction=/);
  });

  it('answers 503 when the hook throws, and is never asked with prompt=none… by the host page', async () => {
    const t = await instance({
      interactions: {
        currentUser: () => {
          throw new Error('session store down');
        },
      },
    });
    const callback = callbackParams(await new FakeBrowser(t.gatehouse).get(authorizeUrl()));
    expect(callback.get('error')).toBe('temporarily_unavailable');
  });
});

function exchangeWith(t: Instance, code: string) {
  return t.gatehouse.fetch(
    post(
      '/oauth2/v1/token',
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: PKCE_VERIFIER },
      { Authorization: basic('demo-client', 'demo-secret') },
    ),
  );
}

describe('interactions options', () => {
  it('needs users.verifyPassword only for the built-in login page and the Auth API', async () => {
    const users = { findUser: async () => null };
    await expect(testInstance({ users })).rejects.toThrow(
      'users.verifyPassword: required by the built-in login page (or set interactions.url) and the Auth API (or set authApi.enabled: false).',
    );
    await expect(testInstance({ users, interactions: { url: '/login' } })).rejects.toThrow(
      'users.verifyPassword: required by the Auth API (or set authApi.enabled: false).',
    );
    const t = await testInstance({ users, interactions: { url: '/login' }, authApi: { enabled: false } });
    // The built-in forms are not served: the host signs users in.
    const login = await t.gatehouse.fetch(post('/login', { username: 'demo', password: 'x' }));
    expect(login.status).toBe(404);
  });

  it('refuses a host page on another origin and a ttl out of bounds, naming the option', async () => {
    await expect(testInstance({ interactions: { url: 'https://evil.example/login' } })).rejects.toThrow(
      /^interactions\.url: must be on the issuer's origin http:\/\/localhost:3000/,
    );
    for (const ttl of [0, 29, 3601, 1.5])
      await expect(testInstance({ interactions: { ttl } })).rejects.toThrow(
        /^interactions\.ttl: expected a whole number/,
      );
    await expect(
      testInstance({ interactions: { currentUser: 'alice' as unknown as () => null } }),
    ).rejects.toThrow(/^interactions\.currentUser: expected a function/);
  });

  it('bounds what an unauthenticated request can make it store', async () => {
    const t = await instance();
    const response = await new FakeBrowser(t.gatehouse).get(authorizeUrl({ state: 's'.repeat(5000) }));
    expect(callbackParams(response).get('error')).toBe('invalid_request');
    expect(t.events.filter((e) => e.type === 'interaction.started')).toEqual([]);
  });
});

describe('acr_values with the host’s sign-in', () => {
  it('asks the host again when the signed-in user’s acr is not among acr_values; prompt=none gets login_required', async () => {
    const t = await instance({
      interactions: {
        currentUser: () => ({ sub: 'alice', authTime: t.clock.now(), acr: 'urn:example:pwd', amr: ['pwd'] }),
      },
    });
    const browser = new FakeBrowser(t.gatehouse);
    expect(
      callbackParams(await browser.get(authorizeUrl({ acr_values: 'urn:example:pwd' }))).get('code'),
    ).toBeTruthy();
    const none = callbackParams(
      await browser.get(authorizeUrl({ acr_values: 'urn:example:mfa', prompt: 'none' })),
    );
    expect(none.get('error')).toBe('login_required');
    const page = await toHostPage(browser, { acr_values: 'urn:example:mfa', scope: 'openid' });
    expect((await t.gatehouse.interactions.details(hostRequest(browser, page))).acrValues).toEqual([
      'urn:example:mfa',
    ]);
    const { location } = await t.gatehouse.interactions.finish(hostRequest(browser, page), {
      login: { sub: 'alice', amr: ['pwd', 'otp'], acr: 'urn:example:mfa' },
    });
    const code = callbackParams(await browser.get(location)).get('code')!;
    const tokens = (await (await exchangeWith(t, code)).json()) as { id_token: string };
    expect(decodeJwt(tokens.id_token)).toMatchObject({ amr: ['pwd', 'otp'], acr: 'urn:example:mfa' });
  });
});

describe('gatehouse.endSession', () => {
  it('ends Gatehouse’s session of a browser when the host signs the user out', async () => {
    const t = await instance();
    const browser = new FakeBrowser(t.gatehouse);
    await signIn(t, browser, await toHostPage(browser));
    const cookie = `gatehouse_session=${browser.session()}`;
    const userinfo = () =>
      t.gatehouse.fetch(
        new Request(`${ISSUER}/oauth2/v1/userinfo`, {
          headers: { Cookie: cookie, Accept: 'application/json', 'Sec-Fetch-Site': 'same-origin' },
        }),
      );
    expect((await userinfo()).status).toBe(200);
    const expired = await t.gatehouse.endSession(
      new Request(`${ORIGIN}/logout`, { headers: { Cookie: cookie } }),
    );
    expect(expired).toMatch(/^gatehouse_session=; Max-Age=0;/);
    expect((await userinfo()).status).toBe(401);
    expect(t.events).toContainEqual({
      type: 'session.ended',
      userId: 'alice',
      sessionId: expect.any(String),
    });
    // Without a session: only the expiry.
    expect(await t.gatehouse.endSession(new Request(`${ORIGIN}/logout`))).toMatch(/^gatehouse_session=;/);
  });
});

describe('interactions started per network', () => {
  it('are bounded by interactions.maxPerNetwork per ttl: beyond it a 429 with Retry-After, nothing stored', async () => {
    const t = await instance({ interactions: { maxPerNetwork: 2 } });
    await toHostPage(new FakeBrowser(t.gatehouse));
    await toHostPage(new FakeBrowser(t.gatehouse));
    const refused = await new FakeBrowser(t.gatehouse).get(authorizeUrl());
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(t.events.filter((event) => event.type === 'interaction.started')).toHaveLength(2);
  });

  it('refuses a maxPerNetwork that is not a whole number of at least 1 at creation', async () => {
    await expect(instance({ interactions: { maxPerNetwork: 0 } })).rejects.toMatchObject({
      code: 'ERR_CONFIG_INVALID_OPTION',
      option: 'interactions.maxPerNetwork',
    });
  });
});
