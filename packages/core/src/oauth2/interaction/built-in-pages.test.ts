import { ConfigurationError, type GatehouseEvent, memoryUserStore } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { authorizeUrl, callbackParams, FakeBrowser, parseForm } from '../../../test/browser-flow';
import {
  basic,
  ISSUER,
  PKCE_VERIFIER,
  post,
  REDIRECT_URI,
  testHasher,
  testInstance,
} from '../../../test/fixtures';

/*
 * The built-in login and consent pages are the default interaction handlers: with no
 * interactions.url, an authorization request that needs the user is an interaction whose page is
 * `{base}/login` or `{base}/consent`, finished through the same `finish` and resume as a host's page.
 */

async function instance() {
  const events: GatehouseEvent[] = [];
  const t = await testInstance({ onEvent: (e) => events.push(e) });
  return { ...t, events, browser: new FakeBrowser(t.gatehouse) };
}

const thirdParty = (params: Record<string, string | null> = {}) =>
  authorizeUrl({ client_id: 'other-client', code_challenge: null, code_challenge_method: null, ...params });

describe('the built-in pages as the default interaction handlers', () => {
  it('sends the browser to the built-in login page of an interaction, then resumes with a code; the request stays on the server', async () => {
    const { browser, events } = await instance();
    const start = await browser.getOnce(authorizeUrl({ state: 'keep me', login_hint: 'demo' }));
    expect(start.status).toBe(303);
    const page = start.headers.get('location')!;
    expect(page).toMatch(new RegExp(`^${ISSUER}/login\\?interaction=[\\w-]{43}$`));
    const html = await (await browser.getOnce(page)).text();
    const form = parseForm(html);
    expect(form.action).toBe('/demo/login');
    // No authorization parameter in the form: only the reference and the CSRF token.
    expect(form.fields).toEqual({
      interaction: new URL(page).searchParams.get('interaction'),
      csrf_token: expect.any(String),
    });
    expect(html).toContain('value="demo"'); // login_hint
    const failed = await browser.submit(html, { username: 'demo', password: 'wrong' });
    expect(failed.status).toBe(400);
    expect(await failed.text()).toContain('The username or password is incorrect.');
    const login = await browser.submit(html, { username: 'demo', password: 'demo-password' });
    expect(login.status).toBe(303);
    expect(login.headers.get('location')).toMatch(`${ISSUER}/interaction/resume?interaction=`);
    const callback = callbackParams(await browser.follow(login));
    expect(callback.get('code')).toBeTruthy();
    expect(callback.get('state')).toBe('keep me');
    expect(events).toContainEqual({ type: 'interaction.started', clientId: 'demo-client', step: 'login' });
    expect(events).toContainEqual({ type: 'login.failed', username: 'demo', via: 'login-page' });
    expect(events).toContainEqual({ type: 'login.succeeded', userId: 'user-1', via: 'login-page' });
    // Signed in: the next request needs no page.
    expect(callbackParams(await browser.get(authorizeUrl())).get('code')).toBeTruthy();
  });

  it('asks consent of a third-party client on the built-in consent page of an interaction; allow is remembered, deny is access_denied', async () => {
    const { browser, events } = await instance();
    for (const decision of ['allow', 'deny']) {
      let response = await browser.getOnce(thirdParty({ prompt: 'consent' }));
      if (!browser.session()) {
        const html = await (await browser.follow(response)).text();
        response = await browser.submit(html, { username: 'demo', password: 'demo-password' });
        response = await browser.getOnce(response.headers.get('location')!); // the resume
      }
      const consentPage = response.headers.get('location')!;
      expect(consentPage).toMatch(`${ISSUER}/consent?interaction=`);
      const html = await (await browser.getOnce(consentPage)).text();
      expect(html).toContain('Allow access?');
      expect(parseForm(html).action).toBe('/demo/consent');
      const callback = callbackParams(await browser.follow(await browser.submit(html, { decision })));
      if (decision === 'allow') expect(callback.get('code')).toBeTruthy();
      else expect(callback.get('error')).toBe('access_denied');
    }
    expect(events).toContainEqual({
      type: 'consent.granted',
      userId: 'user-1',
      clientId: 'other-client',
      scope: 'read',
    });
    expect(events).toContainEqual({ type: 'consent.denied', userId: 'user-1', clientId: 'other-client' });
  });

  it('refuses a forged, finished or other-step reference and a cross-site post, never with a code', async () => {
    const { browser } = await instance();
    expect((await browser.getOnce(`${ISSUER}/login?interaction=${'A'.repeat(43)}`)).status).toBe(400);
    const page = (await browser.getOnce(authorizeUrl())).headers.get('location')!;
    const reference = new URL(page).searchParams.get('interaction')!;
    // A login interaction is not a consent one.
    expect((await browser.getOnce(`${ISSUER}/consent?interaction=${reference}`)).status).toBe(400);
    const html = await (await browser.getOnce(page)).text();
    const crossSite = await browser.submit(
      html,
      { username: 'demo', password: 'demo-password' },
      { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' },
    );
    expect(crossSite.status).toBe(403);
    const login = await browser.submit(html, { username: 'demo', password: 'demo-password' });
    expect(login.status).toBe(303);
    const again = await browser.submit(html, { username: 'demo', password: 'demo-password' });
    expect(again.status).toBe(400); // finished already
    expect(again.headers.get('location')).toBeNull();
  });

  it('sends the client login_required, with no code and no session, when another user than the id_token_hint names signs in', async () => {
    const events: GatehouseEvent[] = [];
    const users = memoryUserStore(
      [
        { id: 'user-1', username: 'demo', passwordHash: await testHasher.hash('demo-password') },
        { id: 'user-2', username: 'other', passwordHash: await testHasher.hash('other-password') },
      ],
      { hasher: testHasher },
    );
    const t = await testInstance({ users, scopes: ['openid', 'read'], onEvent: (e) => events.push(e) });
    // user-2's ID token, from a sign-in of its own browser.
    const own = new FakeBrowser(t.gatehouse);
    const ownPage = await (await own.get(authorizeUrl({ scope: 'openid' }))).text();
    const ownLogin = await own.submit(ownPage, { username: 'other', password: 'other-password' });
    const code = callbackParams(await own.follow(ownLogin)).get('code')!;
    const tokens = await t.gatehouse.fetch(
      post(
        '/oauth2/v1/token',
        { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: PKCE_VERIFIER },
        { Authorization: basic('demo-client', 'demo-secret') },
      ),
    );
    const hint = ((await tokens.json()) as { id_token: string }).id_token;

    const browser = new FakeBrowser(t.gatehouse);
    const hinted = authorizeUrl({ scope: 'openid', id_token_hint: hint, state: 'for user-2' });
    const html = await (await browser.get(hinted)).text();
    const login = await browser.submit(html, { username: 'demo', password: 'demo-password' });
    const callback = callbackParams(await browser.follow(login));
    expect(callback.get('error')).toBe('login_required');
    expect(callback.get('state')).toBe('for user-2');
    expect(callback.get('code')).toBeNull();
    expect(browser.session()).toBeUndefined();
    expect(events).toContainEqual({ type: 'interaction.refused', reason: 'interaction_wrong_user' });
    // The user the hint names gets the code.
    const again = await (await browser.get(hinted)).text();
    const right = await browser.submit(again, { username: 'other', password: 'other-password' });
    expect(callbackParams(await browser.follow(right)).get('code')).toBeTruthy();
  });

  it('are not served when the host has its own page (interactions.url)', async () => {
    const t = await testInstance({ interactions: { url: '/signin' } });
    expect((await t.gatehouse.fetch(post('/login', { username: 'demo', password: 'x' }))).status).toBe(404);
    expect((await t.gatehouse.fetch(new Request(`${ISSUER}/consent?interaction=x`))).status).toBe(404);
  });

  it('need users.verifyPassword: a ConfigurationError names the option when it is missing', async () => {
    const users = { findUser: async () => null };
    const error = await testInstance({ users, authApi: { enabled: false } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error).toMatchObject({ code: 'ERR_CONFIG_MISSING_OPTION', option: 'users.verifyPassword' });
    expect((error as Error).message).toMatch(
      /required by the built-in login page \(or set interactions\.url\)/,
    );
  });
});
