import { memoryClientStore } from '@gatehousejs/core';
import { hashSecret, kvSessionStore, memoryKeyValueStore } from '@gatehousejs/core/engine';
import { describe, expect, it } from 'vitest';
import { authorizeUrl, FakeBrowser, parseSetCookie, signIn } from '../../test/browser-flow';
import { ISSUER, REDIRECT_URI, testClients, testInstance } from '../../test/fixtures';

const userinfo = (browser: FakeBrowser) =>
  browser.fetch(`${ISSUER}/oauth2/v1/userinfo`, {
    headers: { Accept: 'application/json', 'Sec-Fetch-Site': 'same-origin' },
  });

describe('session cookie', () => {
  it('is stored only as a hash of a 256-bit random id', async () => {
    const sessionsKv = memoryKeyValueStore();
    const sessions = kvSessionStore(sessionsKv);
    const t = await testInstance({ storage: { kv: sessionsKv } });
    const browser = new FakeBrowser(t.gatehouse);
    await signIn(browser, authorizeUrl());
    const id = browser.session()!;
    expect(Buffer.from(id, 'base64url')).toHaveLength(32);
    expect(await sessions.findSession(id, t.clock.now())).toBeNull();
    expect(await sessions.findSession(await hashSecret(id), t.clock.now())).toMatchObject({
      userId: 'user-1',
    });
  });

  it('has a configurable name, and is Secure on an https issuer', async () => {
    const https = 'https://auth.example.com/tenant';
    const clients = (await testClients()).map((c) => ({ ...c, redirectUris: [REDIRECT_URI] }));
    const t = await testInstance({
      issuer: https,
      clients: memoryClientStore(clients),
      session: { cookieName: 'SVCID' },
    });
    const url = authorizeUrl().replace(ISSUER, https);
    const cookiesOf = (response: Response) => response.headers.getSetCookie().map(parseSetCookie);
    const start = await t.gatehouse.fetch(new Request(url));
    const [binding] = cookiesOf(start);
    expect(binding).toMatchObject({
      name: 'SVCID_interaction',
      attributes: { secure: true, path: '/tenant' },
    });
    const pageUrl = start.headers.get('location')!;
    const page = await t.gatehouse.fetch(
      new Request(pageUrl, { headers: { Cookie: `SVCID_interaction=${binding!.value}` } }),
    );
    const html = await page.text();
    const csrf = cookiesOf(page)[0]!;
    expect(csrf).toMatchObject({ name: 'SVCID_csrf', attributes: { secure: true, path: '/tenant' } });
    const token = /name="csrf_token" value="([^"]+)"/.exec(html)![1]!;
    const cookie = `SVCID_csrf=${token}; SVCID_interaction=${binding!.value}`;
    const form = new URLSearchParams({
      interaction: new URL(pageUrl).searchParams.get('interaction')!,
      csrf_token: token,
      username: 'demo',
      password: 'demo-password',
    });
    const login = await t.gatehouse.fetch(
      new Request(`${https}/login`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          Origin: 'https://auth.example.com',
          Cookie: cookie,
        },
        body: form.toString(),
      }),
    );
    expect(login.status).toBe(303);
    const resumed = await t.gatehouse.fetch(
      new Request(login.headers.get('location')!, { headers: { Cookie: cookie } }),
    );
    const session = cookiesOf(resumed).find((c) => c.name === 'SVCID')!;
    expect(session).toMatchObject({
      name: 'SVCID',
      attributes: { secure: true, httponly: true, samesite: 'Lax', path: '/tenant' },
    });
    expect(session.attributes.domain).toBeUndefined();
  });

  it('ends after the idle timeout without activity', async () => {
    const t = await testInstance({ session: { idleTimeout: 600, absoluteTimeout: 3600 } });
    const browser = new FakeBrowser(t.gatehouse);
    await signIn(browser, authorizeUrl());
    t.clock.advance(599);
    expect((await userinfo(browser)).status).toBe(200);
    t.clock.advance(599); // activity above slid the idle timeout
    expect((await userinfo(browser)).status).toBe(200);
    t.clock.advance(601);
    expect((await userinfo(browser)).status).toBe(401);
  });

  it('ends at the absolute timeout whatever the activity', async () => {
    const t = await testInstance({ session: { idleTimeout: 600, absoluteTimeout: 3600 } });
    const browser = new FakeBrowser(t.gatehouse);
    await signIn(browser, authorizeUrl());
    for (let elapsed = 0; elapsed < 3500; elapsed += 500) {
      t.clock.advance(500);
      expect((await userinfo(browser)).status).toBe(200);
    }
    t.clock.advance(101);
    expect((await userinfo(browser)).status).toBe(401);
  });

  it('shows the login page again once the session has ended', async () => {
    const t = await testInstance({ session: { idleTimeout: 600 } });
    const browser = new FakeBrowser(t.gatehouse);
    await signIn(browser, authorizeUrl());
    expect((await browser.get(authorizeUrl())).status).toBe(303);
    t.clock.advance(601);
    expect((await browser.get(authorizeUrl())).status).toBe(200);
  });
});
