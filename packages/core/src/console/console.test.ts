import { memoryUserStore } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { FakeBrowser } from '../../test/browser-flow';
import {
  basic,
  ISSUER,
  issueTokens,
  post,
  type TestInstance,
  testHasher,
  testInstance,
} from '../../test/fixtures';

const CONSOLE = `${ISSUER}/admin/`;

/** An instance with the admin API (only `user-1`, "demo", designated), stored keys and two users. */
async function consoleInstance(overrides: Parameters<typeof testInstance>[0] = {}) {
  return testInstance({
    keyRotation: { keyEncryptionKey: new Uint8Array(32).fill(7) },
    admin: {
      authorize: ({ subject }) => subject.kind === 'user' && subject.userId === 'user-1',
    },
    users: memoryUserStore(
      [
        { id: 'user-1', username: 'demo', passwordHash: await testHasher.hash('demo-password') },
        { id: 'user-2', username: 'other', passwordHash: await testHasher.hash('other-password') },
      ],
      { hasher: testHasher },
    ),
    ...overrides,
  });
}

/**
 * Signs a browser in to the console as `username`, through the instance's own code flow: the
 * console's redirect to the authorization endpoint, the login page, the resume, the callback.
 * Answers the page the console then shows.
 */
async function signInToConsole(t: TestInstance, username = 'demo', password = 'demo-password') {
  const browser = new FakeBrowser(t.gatehouse);
  const start = await browser.get(CONSOLE);
  expect(start.status).toBe(303);
  const authorize = new URL(start.headers.get('location')!);
  expect(authorize.pathname).toBe('/demo/oauth2/v1/authorize');
  expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
  expect(authorize.searchParams.get('scope')).toBe('gatehouse:admin');
  const login = await browser.get(authorize.href);
  expect(login.status).toBe(200);
  const resumed = await browser.follow(await browser.submit(await login.text(), { username, password }));
  expect(resumed.status).toBe(303);
  const callback = new URL(resumed.headers.get('location')!);
  expect(callback.pathname).toBe('/demo/admin/callback');
  const landed = await browser.get(callback.href);
  expect(landed.status).toBe(303);
  expect(landed.headers.get('location')).toBe('/demo/admin/');
  const page = await browser.get(CONSOLE);
  return { browser, page, html: await page.text() };
}

/** The form (as HTML) whose hidden fields include `name=value`, or whose button says `button`. */
function formWith(html: string, match: string): string {
  const form = [...html.matchAll(/<form method="post"[\s\S]*?<\/form>/g)]
    .map((m) => m[0])
    .find((f) => f.includes(match));
  if (!form) throw new Error(`no form with ${match}`);
  return form;
}

async function follow(browser: FakeBrowser, response: Response) {
  expect(response.status).toBe(303);
  const page = await browser.get(response.headers.get('location')!);
  return { page, html: await page.text() };
}

describe('the operations console ({base}/admin/)', () => {
  it('signs a designated user in with the code flow and PKCE, and shows the overview with its charts', async () => {
    const t = await consoleInstance();
    await issueTokens(t, 'read');
    const { browser, page, html } = await signInToConsole(t);
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('script-src');
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('<nav class="sections" aria-label="Console sections">');
    expect(html).toContain('aria-current="page"');
    expect(html).toContain('Signed in as demo');
    expect(html).toContain('Everything is working.');
    // Tokens were issued: a picture with a text alternative.
    expect(html).toMatch(
      /<svg class="chart"[^>]*role="img"[^>]*aria-labelledby="tokens-chart-title tokens-chart-desc"/,
    );
    expect(html).toMatch(/<desc id="tokens-chart-desc">\d+ in the last hour: .*authorization_code \d+/);
    // The console's cookie is HttpOnly, SameSite, scoped to the console; it holds no refresh token.
    const cookies = [...browser.cookies.keys()];
    expect(cookies).toContain('gatehouse_session_console');
    expect(cookies).not.toContain('gatehouse_session_console_login');
  });

  it('rotates and revokes keys from the keys section, and the timeline follows', async () => {
    const t = await consoleInstance();
    const { browser } = await signInToConsole(t);
    const keys = await browser.get(`${ISSUER}/admin/keys`);
    const before = await keys.text();
    expect(before).toContain('Why this key signs:');
    expect(before).toContain('<svg class="chart"');
    const rowsBefore = before.match(/<tr>\n<td><code>/g)?.length ?? 0;
    // Signing with the new key at once (`now`): without it the next key waits for its lead time.
    const rotated = await follow(
      browser,
      await browser.submit(formWith(before, 'Rotate keys'), { now: 'true' }),
    );
    expect(rotated.html).toContain('Keys rotated.');
    // One new next key per rotated algorithm (ES256 and RS256 here).
    expect(rotated.html.match(/<tr>\n<td><code>/g)?.length).toBeGreaterThan(rowsBefore);
    expect(rotated.html).toContain('<span class="badge next">next</span>');
    const next = /<tr>\n<td><code>([^<]+)<\/code><\/td>\n<td>[^<]*<\/td>\n<td><span class="badge next">/.exec(
      rotated.html,
    )?.[1];
    expect(next).toBeDefined();
    const revoked = await follow(browser, await browser.submit(formWith(rotated.html, `value="${next}"`)));
    expect(revoked.html).toContain(`Key ${next} revoked.`);
    expect(revoked.html).toContain('<span class="badge revoked">revoked</span>');
  });

  it('finds a user, lists their sessions and grants, and revokes a grant: its refresh token is refused', async () => {
    const t = await consoleInstance();
    const tokens = await issueTokens(t, 'read');
    const { browser } = await signInToConsole(t);
    const search = await browser.get(`${ISSUER}/admin/users?q=user-1`);
    const found = await search.text();
    expect(found).toContain('<a href="/demo/admin/users?q=user-1&amp;user=user-1">');
    const user = await browser.get(`${ISSUER}/admin/users?q=user-1&user=user-1`);
    const html = await user.text();
    expect(html).toContain('<caption class="vh">Sessions</caption>');
    expect(html).toContain('<caption class="vh">Grants</caption>');
    const grantForm = formWith(html, 'name="grant_id"');
    const done = await follow(browser, await browser.submit(grantForm));
    expect(done.html).toContain('Grant revoked');
    const refused = await t.gatehouse.fetch(
      post(
        '/oauth2/v1/token',
        { grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
        { Authorization: basic('demo-client', 'demo-secret') },
      ),
    );
    expect(refused.status).toBe(400);
    expect((await refused.json()).error).toBe('invalid_grant');
  });

  it('shows the clients and the audit trail, filtered', async () => {
    const t = await consoleInstance();
    const { browser } = await signInToConsole(t);
    const clients = await (await browser.get(`${ISSUER}/admin/clients`)).text();
    expect(clients).toContain('<code>demo-client</code>');
    expect(clients).toContain('configured by the host');
    const audit = await (await browser.get(`${ISSUER}/admin/audit?type=login.succeeded`)).text();
    expect(audit).toContain('<code>login.succeeded</code>');
    expect(audit).not.toContain('<code>token.issued</code>');
  });

  it('refuses a signed-in user the host does not designate, with a 403 page', async () => {
    const t = await consoleInstance();
    const browser = new FakeBrowser(t.gatehouse);
    const start = await browser.get(CONSOLE);
    const login = await browser.get(start.headers.get('location')!);
    const resumed = await browser.follow(
      await browser.submit(await login.text(), { username: 'other', password: 'other-password' }),
    );
    await browser.get(resumed.headers.get('location')!);
    const page = await browser.get(CONSOLE);
    expect(page.status).toBe(403);
    expect(await page.text()).toContain('Your account is not allowed to use the operations console.');
    expect(browser.cookies.has('gatehouse_session_console')).toBe(false);
  });

  it('refuses a form without its CSRF token and a cross-site one, changing nothing', async () => {
    const t = await consoleInstance();
    const { browser } = await signInToConsole(t);
    const keys = await (await browser.get(`${ISSUER}/admin/keys`)).text();
    const form = formWith(keys, 'Rotate keys');
    expect((await browser.submit(form, { csrf_token: 'x'.repeat(43) })).status).toBe(403);
    expect(
      (await browser.submit(form, {}, { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' }))
        .status,
    ).toBe(403);
    const after = await (await browser.get(`${ISSUER}/admin/keys`)).text();
    expect(after.match(/<tr>\n<td><code>/g)?.length).toBe(keys.match(/<tr>\n<td><code>/g)?.length);
  });

  it('refuses a callback without its pending sign-in (CSRF of the authorization response)', async () => {
    const t = await consoleInstance();
    const browser = new FakeBrowser(t.gatehouse);
    const answer = await browser.get(`${ISSUER}/admin/callback?code=abc&state=${'s'.repeat(43)}`);
    expect(answer.status).toBe(400);
  });

  it('is not served without the admin API, or with `adminConsole: false`', async () => {
    for (const t of [await testInstance(), await consoleInstance({ adminConsole: false })]) {
      const response = await t.gatehouse.fetch(new Request(CONSOLE, { headers: { Accept: 'text/html' } }));
      expect(response.status).toBe(404);
    }
    await expect(testInstance({ adminConsole: true })).rejects.toMatchObject({ option: 'adminConsole' });
  });
});
