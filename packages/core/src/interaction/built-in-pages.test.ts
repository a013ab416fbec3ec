import type { GatehouseEvent } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { authorizeUrl, callbackParams, FakeBrowser, parseForm } from '../../test/browser-flow';
import { ISSUER, testInstance } from '../../test/fixtures';

/*
 * interactions.builtInPages (issue 29, item 3): the built-in login and consent pages as interaction
 * handlers, on the same details/finish as a host's own pages.
 */

async function instance() {
  const events: GatehouseEvent[] = [];
  const t = await testInstance({ interactions: { builtInPages: true }, onEvent: (e) => events.push(e) });
  return { ...t, events, browser: new FakeBrowser(t.gatehouse) };
}

describe('the built-in pages as interaction handlers', () => {
  it('signs in on the built-in page of the interaction and resumes with a code; the request stays on the server', async () => {
    const { browser, events } = await instance();
    const start = await browser.get(authorizeUrl({ state: 'keep me', login_hint: 'demo' }));
    expect(start.status).toBe(303);
    const page = start.headers.get('location')!;
    expect(page).toMatch(new RegExp(`^${ISSUER}/interaction\\?interaction=[\\w-]{43}$`));
    const html = await (await browser.get(page)).text();
    const form = parseForm(html);
    expect(form.action).toBe(new URL(page).pathname + new URL(page).search);
    expect(Object.keys(form.fields)).toEqual(['csrf_token']); // no authorization parameters in the form
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
    expect(events).toContainEqual({ type: 'login.failed', username: 'demo', via: 'login-page' });
    expect(events).toContainEqual({ type: 'login.succeeded', userId: 'user-1', via: 'interaction' });
    // Signed in: the next request needs no page.
    expect(callbackParams(await browser.get(authorizeUrl())).get('code')).toBeTruthy();
  });

  it('asks consent of a third-party client on the built-in consent page; deny is access_denied', async () => {
    const { browser } = await instance();
    for (const decision of ['allow', 'deny']) {
      const url = authorizeUrl({
        client_id: 'other-client',
        code_challenge: null,
        code_challenge_method: null,
        scope: 'read',
        prompt: 'consent', // the second time too, once the first consent is remembered
      });
      let response = await browser.get(url);
      if (!browser.session()) {
        const html = await (await browser.follow(response)).text();
        response = await browser.follow(
          await browser.submit(html, { username: 'demo', password: 'demo-password' }),
        );
      }
      const consentPage = response.headers.get('location')!;
      expect(consentPage).toMatch(`${ISSUER}/interaction?interaction=`);
      const html = await (await browser.get(consentPage)).text();
      expect(html).toContain('Allow access?');
      const callback = callbackParams(await browser.follow(await browser.submit(html, { decision })));
      if (decision === 'allow') expect(callback.get('code')).toBeTruthy();
      else expect(callback.get('error')).toBe('access_denied');
    }
  });

  it('refuses a forged or replayed reference and a cross-site post, and serves no inline form routes', async () => {
    const { gatehouse, browser } = await instance();
    const forged = await browser.get(`${ISSUER}/interaction?interaction=${'A'.repeat(43)}`);
    expect(forged.status).toBe(400);
    const page = (await browser.get(authorizeUrl())).headers.get('location')!;
    const html = await (await browser.get(page)).text();
    const crossSite = await browser.submit(
      html,
      { username: 'demo', password: 'demo-password' },
      { Origin: 'https://evil.example' },
    );
    expect(crossSite.status).toBe(403);
    const login = await browser.submit(html, { username: 'demo', password: 'demo-password' });
    expect(login.status).toBe(303);
    const again = await browser.submit(html, { username: 'demo', password: 'demo-password' });
    expect(again.status).toBe(400); // finished already
    const legacy = await gatehouse.fetch(new Request(`${ISSUER}/login`, { method: 'POST' }));
    expect(legacy.status).toBe(404);
  });

  it('excludes interactions.url', async () => {
    await expect(testInstance({ interactions: { builtInPages: true, url: '/login' } })).rejects.toThrow(
      /^interactions\.builtInPages: the built-in pages are the interaction handlers/,
    );
  });
});
