import { kvConsentStore, memoryKeyValueStore } from '@gatehousejs/core/engine';
import { describe, expect, it } from 'vitest';
import { authorizeUrl, callbackParams, FakeBrowser, logIn, parseForm } from '../../../test/browser-flow';
import { ISSUER, testInstance } from '../../../test/fixtures';

/** A third-party request (other-client is not first-party), without PKCE (confidential client). */
const thirdParty = (params: Record<string, string | null> = {}) =>
  authorizeUrl({ client_id: 'other-client', code_challenge: null, code_challenge_method: null, ...params });

async function consentPage(t: Awaited<ReturnType<typeof testInstance>>, url = thirdParty()) {
  const browser = new FakeBrowser(t.gatehouse);
  const page = await browser.follow(await logIn(browser, url));
  expect(page.status).toBe(200);
  return { browser, html: await page.text(), page };
}

describe('consent', () => {
  it('shows third-party clients a consent page with Allow and Deny buttons', async () => {
    const t = await testInstance();
    const { html, page } = await consentPage(t, thirdParty({ scope: 'read write' }));
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(html).toMatch(/<button type="submit" name="decision" value="allow">Allow<\/button>/);
    expect(html).toMatch(/<button type="submit" name="decision" value="deny"[^>]*>Deny<\/button>/);
    expect(html).toContain('<code>read</code>');
    expect(html).toContain('<code>write</code>');
    expect(parseForm(html).action).toBe('/demo/consent');
    expect(Object.keys(parseForm(html).fields).sort()).toEqual(['csrf_token', 'interaction']);
  });

  it('redirects access_denied with state and iss when the user denies', async () => {
    const t = await testInstance();
    const { browser, html } = await consentPage(t);
    const query = callbackParams(await browser.follow(await browser.submit(html, { decision: 'deny' })));
    expect(query.get('error')).toBe('access_denied');
    expect(query.get('state')).toBe('xyz');
    expect(query.get('iss')).toBe(ISSUER);
    expect(query.has('code')).toBe(false);
  });

  it('issues the code when the user allows, and remembers it per user, client and scope', async () => {
    const consentsKv = memoryKeyValueStore();
    const consents = kvConsentStore(consentsKv);
    const t = await testInstance({ storage: { kv: consentsKv } });
    const { browser, html } = await consentPage(t, thirdParty({ scope: 'read write' }));
    const allowed = callbackParams(await browser.follow(await browser.submit(html, { decision: 'allow' })));
    expect(allowed.get('code')).toBeTruthy();
    expect((await consents.findConsent('user-1', 'other-client', t.clock.now()))?.scope).toBe('read write');

    // Same or narrower scope: no page. Wider scope: asked again.
    expect(callbackParams(await browser.get(thirdParty({ scope: 'read' }))).get('code')).toBeTruthy();
    const wider = await browser.get(thirdParty({ scope: 'read admin' }));
    expect(wider.status).toBe(200);
    expect(await wider.text()).toContain('<code>admin</code>');
  });

  it('skips consent for first-party clients', async () => {
    const t = await testInstance();
    const browser = new FakeBrowser(t.gatehouse);
    const redirect = await browser.follow(await logIn(browser, authorizeUrl()));
    expect(callbackParams(redirect).get('code')).toBeTruthy();
  });

  it('refuses a consent POST without the CSRF token or from another origin', async () => {
    const t = await testInstance();
    const { browser, html } = await consentPage(t);
    const noToken = await browser.submit(html, { decision: 'allow', csrf_token: '' });
    expect(noToken.status).toBe(403);
    expect(noToken.headers.get('location')).toBeNull();
    const foreign = await browser.submit(
      html,
      { decision: 'allow' },
      { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' },
    );
    expect(foreign.status).toBe(403);
  });

  it('shows the login page again when the session ended before the decision', async () => {
    const t = await testInstance();
    const { browser, html } = await consentPage(t);
    browser.cookies.delete('gatehouse_session');
    const response = await browser.submitAndFollow(html, { decision: 'allow' });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('name="password"');
  });
});

describe('the host’s consent memory policy (consent.remember)', () => {
  it('remembers only what the policy keeps, for as long as it says; the grant gets all that was allowed', async () => {
    const consentsKv = memoryKeyValueStore();
    const consents = kvConsentStore(consentsKv);
    const asked: unknown[] = [];
    const t = await testInstance({
      storage: { kv: consentsKv },
      // `write` is asked for every time; `read` is remembered for a day.
      consent: {
        remember: (given) => {
          asked.push(given);
          return { scopes: given.scopes.filter((scope) => scope !== 'write'), ttl: 86_400 };
        },
      },
    });
    const { browser, html } = await consentPage(t, thirdParty({ scope: 'read write' }));
    const allowed = callbackParams(await browser.follow(await browser.submit(html, { decision: 'allow' })));
    const token = await t.gatehouse.fetch(
      new Request(`${ISSUER}/oauth2/v1/token`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          Authorization: `Basic ${btoa('other-client:other-secret')}`,
        },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: allowed.get('code')!,
          redirect_uri: 'http://localhost:3000/callback',
        }),
      }),
    );
    expect(((await token.json()) as { scope: string }).scope).toBe('read write');
    expect(asked).toEqual([
      {
        userId: 'user-1',
        clientId: 'other-client',
        firstParty: false,
        scopes: ['read', 'write'],
        resources: [],
      },
    ]);
    const remembered = await consents.findConsent('user-1', 'other-client', t.clock.now());
    expect(remembered?.scope).toBe('read');
    expect(remembered?.expiresAt).toBe(t.clock.now() + 86_400_000);
    // `read` alone: no page; `write` again: the page.
    expect(callbackParams(await browser.get(thirdParty({ scope: 'read' }))).get('code')).toBeTruthy();
    expect((await browser.get(thirdParty({ scope: 'write' }))).status).toBe(200);
    // After the day, `read` is asked again.
    t.clock.advance(86_400);
    expect((await browser.get(thirdParty({ scope: 'read' }))).status).toBe(200);
  });

  it('remembers nothing with ttl 0, and refuses a non-function at creation', async () => {
    const t = await testInstance({ consent: { remember: () => ({ ttl: 0 }) } });
    const { browser, html } = await consentPage(t);
    expect(
      callbackParams(await browser.follow(await browser.submit(html, { decision: 'allow' }))).get('code'),
    ).toBeTruthy();
    expect((await browser.get(thirdParty())).status).toBe(200);
    await expect(testInstance({ consent: { remember: 'forever' as never } })).rejects.toMatchObject({
      code: 'ERR_CONFIG_INVALID_OPTION',
      option: 'consent.remember',
    });
  });
});
