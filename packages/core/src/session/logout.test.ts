import type { GatehouseEvent } from '@gatehousejs/core';
import { memoryKeyValueStore } from '@gatehousejs/core/engine';
import { describe, expect, it } from 'vitest';
import {
  authorizeUrl,
  FakeBrowser,
  ORIGIN,
  parseForm,
  parseSetCookie,
  signIn,
} from '../../test/browser-flow';
import { ISSUER, testInstance } from '../../test/fixtures';

const userinfo = (browser: FakeBrowser, cookie?: string) =>
  browser.fetch(`${ISSUER}/oauth2/v1/userinfo`, {
    headers: {
      Accept: 'application/json',
      'Sec-Fetch-Site': 'same-origin',
      ...(cookie ? { Cookie: cookie } : {}),
    },
  });

async function loggedIn(overrides = {}) {
  const t = await testInstance(overrides);
  const browser = new FakeBrowser(t.gatehouse);
  await signIn(browser, authorizeUrl());
  expect((await userinfo(browser)).status).toBe(200);
  return { t, browser };
}

describe('logout', () => {
  it('GET shows a confirmation form with its CSRF token', async () => {
    const { browser } = await loggedIn();
    const page = await browser.get(`${ISSUER}/logout`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const html = await page.text();
    expect(html).toContain('demo');
    const form = parseForm(html);
    expect(form.action).toBe('/demo/logout');
    expect(form.fields.csrf_token).toBe(browser.cookies.get('gatehouse_session_csrf'));
  });

  it('POST with the form token ends the session; the old cookie then gets 401', async () => {
    const events: GatehouseEvent[] = [];
    const { browser } = await loggedIn({
      onEvent: (e: GatehouseEvent) => events.push(e),
      storage: { kv: memoryKeyValueStore() },
    });
    const oldCookie = `gatehouse_session=${browser.session()}`;
    const html = await (await browser.get(`${ISSUER}/logout`)).text();
    // An old browser: no Origin, no Sec-Fetch-Site, only the token.
    const response = await browser.submit(html, {}, { Origin: '', 'Sec-Fetch-Site': '' });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('Signed out');
    const expired = parseSetCookie(
      response.headers.getSetCookie().find((c) => c.startsWith('gatehouse_session='))!,
    );
    expect(expired.value).toBe('');
    expect(expired.attributes['max-age']).toBe('0');
    expect(expired.attributes.path).toBe('/demo');
    expect(browser.session()).toBeUndefined();
    const after = await userinfo(browser, oldCookie);
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
    expect(events).toContainEqual({
      type: 'session.ended',
      userId: 'user-1',
      sessionId: expect.any(String),
    });
  });

  it('POST from a same-origin fetch needs no token', async () => {
    const { browser } = await loggedIn();
    const oldCookie = `gatehouse_session=${browser.session()}`;
    const response = await browser.fetch(`${ISSUER}/logout`, {
      method: 'POST',
      headers: { Origin: ORIGIN, Accept: '*/*' },
    });
    expect(response.status).toBe(204);
    expect((await userinfo(browser, oldCookie)).status).toBe(401);
  });

  it('refuses a cross-site POST with 403 and keeps the session', async () => {
    const { browser } = await loggedIn();
    for (const headers of [
      { Origin: 'https://evil.example' },
      { Origin: 'null' },
      { 'Sec-Fetch-Site': 'cross-site' },
    ] as Record<string, string>[]) {
      const response = await browser.fetch(`${ISSUER}/logout`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
        body: `csrf_token=${browser.cookies.get('gatehouse_session_csrf') ?? 'guess'}`,
      });
      expect(response.status).toBe(403);
      expect(response.headers.getSetCookie()).toEqual([]);
    }
    expect((await userinfo(browser)).status).toBe(200);
  });

  it('refuses a POST with neither origin proof nor token', async () => {
    const { browser } = await loggedIn();
    const response = await browser.fetch(`${ISSUER}/logout`, { method: 'POST' });
    expect(response.status).toBe(403);
    expect((await userinfo(browser)).status).toBe(200);
  });

  it('shows "signed out" without a session', async () => {
    const t = await testInstance();
    const page = await new FakeBrowser(t.gatehouse).get(`${ISSUER}/logout`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('You are not signed in.');
  });
});
