import type { GatehouseEvent } from '@gatehousejs/core';
import { hashSecret, kvSessionStore, memoryKeyValueStore } from '@gatehousejs/core/engine';
import { describe, expect, it } from 'vitest';
import {
  authorizeUrl,
  callbackParams,
  FakeBrowser,
  logIn,
  ORIGIN,
  parseForm,
  parseSetCookie,
} from '../../../test/browser-flow';
import { ISSUER, testInstance } from '../../../test/fixtures';
import { recordingRateLimits } from '../../../test/recording-kv';

async function loginPage(browser: FakeBrowser, url = authorizeUrl()) {
  const response = await browser.get(url);
  expect(response.status).toBe(200);
  return response.text();
}

describe('login page', () => {
  it('is a plain form with username, password and a CSRF token matching its cookie', async () => {
    const t = await testInstance();
    const browser = new FakeBrowser(t.gatehouse);
    const response = await browser.get(authorizeUrl());
    const html = await response.text();
    expect(html).toMatch(/<input type="text" id="username" name="username"/);
    expect(html).toMatch(/<input type="password" id="password" name="password"/);
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('name="viewport"');
    const { action, fields } = parseForm(html);
    expect(action).toBe('/demo/login');
    const cookie = parseSetCookie(
      response.headers.getSetCookie().find((c) => c.startsWith('gatehouse_session_csrf='))!,
    );
    expect(fields.csrf_token).toBe(cookie.value);
    expect(cookie.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(cookie.attributes).toMatchObject({ httponly: true, samesite: 'Strict', path: '/demo' });
    expect(cookie.attributes.domain).toBeUndefined();
  });

  it('reuses the CSRF cookie of the browser, so that several tabs keep working', async () => {
    const t = await testInstance();
    const browser = new FakeBrowser(t.gatehouse);
    const first = parseForm(await loginPage(browser)).fields.csrf_token;
    const second = await browser.get(authorizeUrl({ state: 'tab2' }));
    expect(second.headers.getSetCookie()).toEqual([]);
    expect(parseForm(await second.text()).fields.csrf_token).toBe(first);
  });

  it('has the page security headers, allowing the form to end at the client origin', async () => {
    const t = await testInstance();
    const response = await new FakeBrowser(t.gatehouse).get(authorizeUrl());
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('same-origin');
    const csp = response.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("base-uri 'none'");
    expect(csp).toContain("form-action 'self' http://localhost:3000");
  });
});

describe('login', () => {
  it('finishes the interaction with 303 to the resume, which starts a new session and continues the request', async () => {
    const events: GatehouseEvent[] = [];
    const t = await testInstance({ onEvent: (e) => events.push(e) });
    const browser = new FakeBrowser(t.gatehouse);
    const response = await logIn(browser, authorizeUrl({ state: 'keep me' }));
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get('location')!, ISSUER);
    expect(location.pathname).toBe('/demo/interaction/resume');
    expect(browser.session()).toBeUndefined(); // not before the resume
    const resumed = await browser.follow(response);
    expect(callbackParams(resumed).get('state')).toBe('keep me');
    const cookie = parseSetCookie(
      resumed.headers.getSetCookie().find((c) => c.startsWith('gatehouse_session='))!,
    );
    expect(cookie.value).toMatch(/^[A-Za-z0-9_-]{43}$/); // 256 bits
    expect(cookie.attributes).toMatchObject({ httponly: true, samesite: 'Lax', path: '/demo' });
    expect(cookie.attributes.secure).toBeUndefined(); // http issuer
    expect(cookie.attributes.domain).toBeUndefined();
    expect(events).toContainEqual({ type: 'login.succeeded', userId: 'user-1', via: 'login-page' });
    expect(JSON.stringify(events)).not.toContain('demo-password');
  });

  it('never adopts a cookie value the browser brought (no session fixation)', async () => {
    const sessionsKv = memoryKeyValueStore();
    const sessions = kvSessionStore(sessionsKv);
    const t = await testInstance({ storage: { kv: sessionsKv } });
    const browser = new FakeBrowser(t.gatehouse);
    browser.cookies.set('gatehouse_session', 'attacker-chosen-value-attacker-chosen-value');
    await browser.follow(await logIn(browser, authorizeUrl()));
    expect(browser.session()).not.toBe('attacker-chosen-value-attacker-chosen-value');
    expect(
      await sessions.findSession(
        await hashSecret('attacker-chosen-value-attacker-chosen-value'),
        t.clock.now(),
      ),
    ).toBeNull();
  });

  it('replaces an existing session by a new id, ending the old one', async () => {
    const sessionsKv = memoryKeyValueStore();
    const sessions = kvSessionStore(sessionsKv);
    const t = await testInstance({ storage: { kv: sessionsKv } });
    const browser = new FakeBrowser(t.gatehouse);
    // e.g. a second tab opened before the first login
    const [tab1, tab2] = [await loginPage(browser), await loginPage(browser)];
    await browser.follow(await browser.submit(tab1, { username: 'demo', password: 'demo-password' }));
    const first = browser.session()!;
    await browser.follow(await browser.submit(tab2, { username: 'demo', password: 'demo-password' }));
    expect(browser.session()).not.toBe(first);
    expect(await sessions.findSession(await hashSecret(first), t.clock.now())).toBeNull();
    expect(await sessions.findSession(await hashSecret(browser.session()!), t.clock.now())).not.toBeNull();
  });

  it('shows one generic message for an unknown user and a wrong password', async () => {
    const events: GatehouseEvent[] = [];
    const t = await testInstance({ onEvent: (e) => events.push(e) });
    const browser = new FakeBrowser(t.gatehouse);
    const html = await loginPage(browser);
    const wrongPassword = await browser.submit(html, { username: 'demo', password: 'nope' });
    const unknownUser = await browser.submit(html, { username: 'nobody', password: 'nope' });
    expect(wrongPassword.status).toBe(400);
    expect(unknownUser.status).toBe(wrongPassword.status);
    const a = (await wrongPassword.text()).replace('value="demo"', 'value="X"');
    const b = (await unknownUser.text()).replace('value="nobody"', 'value="X"');
    expect(a).toBe(b);
    expect(a).toContain('The username or password is incorrect.');
    expect(browser.session()).toBeUndefined();
    expect(events.filter((e) => e.type === 'login.failed')).toHaveLength(2);
  });

  it('refuses a POST from a foreign origin with 403 and no session', async () => {
    const t = await testInstance();
    const browser = new FakeBrowser(t.gatehouse);
    const html = await loginPage(browser);
    for (const headers of [
      { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' },
      { Origin: 'https://evil.example', 'Sec-Fetch-Site': '' },
      { Origin: 'https://localhost:3000', 'Sec-Fetch-Site': 'same-site' },
      { Origin: 'null', 'Sec-Fetch-Site': 'cross-site' },
      { Origin: 'null', 'Sec-Fetch-Site': '' },
      { Origin: '', 'Sec-Fetch-Site': 'cross-site' },
    ] as Record<string, string>[]) {
      const response = await browser.submit(html, { username: 'demo', password: 'demo-password' }, headers);
      expect(response.status).toBe(403);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(browser.session()).toBeUndefined();
    }
  });

  it('accepts Origin: null only with Sec-Fetch-Site: same-origin and a valid token', async () => {
    const t = await testInstance();
    const browser = new FakeBrowser(t.gatehouse);
    const html = await loginPage(browser);
    const withoutToken = await browser.submit(
      html,
      { username: 'demo', password: 'demo-password', csrf_token: 'x'.repeat(43) },
      { Origin: 'null', 'Sec-Fetch-Site': 'same-origin' },
    );
    expect(withoutToken.status).toBe(403);
    const ok = await browser.submit(
      html,
      { username: 'demo', password: 'demo-password' },
      { Origin: 'null', 'Sec-Fetch-Site': 'same-origin' },
    );
    expect(ok.status).toBe(303);
  });

  it('refuses a missing or wrong CSRF token with 403 and a fresh form', async () => {
    const t = await testInstance();
    const browser = new FakeBrowser(t.gatehouse);
    const html = await loginPage(browser);
    const wrong = await browser.submit(html, {
      username: 'demo',
      password: 'demo-password',
      csrf_token: 'A'.repeat(43),
    });
    expect(wrong.status).toBe(403);
    expect(browser.session()).toBeUndefined();
    browser.cookies.delete('gatehouse_session_csrf');
    const noCookie = await browser.submit(html, { username: 'demo', password: 'demo-password' });
    expect(noCookie.status).toBe(403);
    // The fresh form of the refusal works.
    const retry = await browser.submit(await noCookie.text(), {
      username: 'demo',
      password: 'demo-password',
    });
    expect(retry.status).toBe(303);
  });

  it('asks again for a missing username or password', async () => {
    const t = await testInstance();
    const browser = new FakeBrowser(t.gatehouse);
    const response = await browser.submit(await loginPage(browser), { username: 'demo' });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('name="password"');
  });

  it('takes nothing of the authorization request from the form: it stays on the server', async () => {
    const t = await testInstance();
    const browser = new FakeBrowser(t.gatehouse);
    const html = await loginPage(browser);
    const tampered = await browser.submit(html, {
      username: 'demo',
      password: 'demo-password',
      redirect_uri: 'https://evil.example/cb',
      response_type: 'token',
      scope: 'admin',
    });
    const callback = await browser.follow(tampered);
    expect(callback.headers.get('location')!.startsWith('http://localhost:3000/callback?')).toBe(true);
    expect(callbackParams(callback).get('code')).toBeTruthy();
  });
});

describe('login brute-force limit', () => {
  const byHeader = (request: Request) => request.headers.get('x-test-address') ?? undefined;

  it('answers 429 with Retry-After over the limit, even for the right password', async () => {
    const events: GatehouseEvent[] = [];
    const t = await testInstance({ rateLimit: { clientAddress: byHeader }, onEvent: (e) => events.push(e) });
    const browser = new FakeBrowser(t.gatehouse);
    const html = await loginPage(browser);
    const from = { 'x-test-address': '203.0.113.7' };
    for (let i = 0; i < 5; i++)
      expect((await browser.submit(html, { username: 'demo', password: `wrong${i}` }, from)).status).toBe(
        400,
      );
    const limited = await browser.submit(html, { username: 'demo', password: 'demo-password' }, from);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('content-type')).toMatch(/^text\/html/);
    expect(browser.session()).toBeUndefined();
    expect(events).toContainEqual({ type: 'login.rate_limited', username: 'demo', via: 'login-page' });
  });

  it('does not lock the real user out from another address, nor after the window', async () => {
    const t = await testInstance({ rateLimit: { clientAddress: byHeader, windowSeconds: 600 } });
    const attacker = new FakeBrowser(t.gatehouse);
    const html = await loginPage(attacker);
    for (let i = 0; i < 6; i++)
      await attacker.submit(
        html,
        { username: 'demo', password: 'guess' },
        { 'x-test-address': '198.51.100.1' },
      );
    expect(
      (
        await attacker.submit(
          html,
          { username: 'demo', password: 'demo-password' },
          { 'x-test-address': '198.51.100.1' },
        )
      ).status,
    ).toBe(429);

    const user = new FakeBrowser(t.gatehouse);
    const ok = await user.submit(
      await loginPage(user),
      { username: 'demo', password: 'demo-password' },
      { 'x-test-address': '192.0.2.5' },
    );
    expect(ok.status).toBe(303);

    t.clock.advance(601);
    const later = await attacker.submit(
      await loginPage(attacker), // the first page's interaction has expired meanwhile
      { username: 'demo', password: 'demo-password' },
      { 'x-test-address': '198.51.100.1' },
    );
    expect(later.status).toBe(303);
  });
});

describe('login credential limits', () => {
  const byHeader = (request: Request) => request.headers.get('x-test-address') ?? undefined;

  it('answers an over-long username like a wrong password, charging only the address', async () => {
    const { kv, keys } = recordingRateLimits();
    const events: GatehouseEvent[] = [];
    const t = await testInstance({
      rateLimit: { clientAddress: byHeader, maxFailuresPerAddress: 2 },
      storage: { kv },
      onEvent: (e) => events.push(e),
    });
    const browser = new FakeBrowser(t.gatehouse);
    const html = await loginPage(browser);
    const from = { 'x-test-address': '203.0.113.8' };
    // U+FDFA: one character, eighteen after NFKC.
    const username = '\uFDFA'.repeat(5000);
    for (let i = 0; i < 2; i++) {
      const response = await browser.submit(html, { username, password: 'guess' }, from);
      expect(response.status).toBe(400);
      const page = await response.text();
      expect(page).toContain('The username or password is incorrect.');
      expect(page).not.toContain('\uFDFA'.repeat(257));
    }
    expect([...keys].filter((key) => key.startsWith('pw:user:'))).toEqual([]);
    const failed = events.filter((e) => e.type === 'login.failed');
    expect(failed).toHaveLength(2);
    expect(failed.every((e) => 'username' in e && e.username.length <= 256)).toBe(true);
    const limited = await browser.submit(html, { username: 'demo', password: 'demo-password' }, from);
    expect(limited.status).toBe(429);
  });
});

describe('login then token', () => {
  it('lands on the client with a code whose token names the logged-in user', async () => {
    const t = await testInstance();
    const browser = new FakeBrowser(t.gatehouse);
    const redirect = await browser.follow(await logIn(browser, authorizeUrl()));
    expect(callbackParams(redirect).get('code')).toBeTruthy();
    const userinfo = await browser.fetch(`${ISSUER}/oauth2/v1/userinfo`, {
      headers: { Accept: 'application/json', Origin: ORIGIN },
    });
    expect(((await userinfo.json()) as { sub: string }).sub).toBe('user-1');
  });
});
