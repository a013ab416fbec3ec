import { defaultLoginPage, escapeHtml, type LoginPageModel } from '@gatehousejs/core/ui';
import { describe, expect, it } from 'vitest';
import { authorizeUrl, callbackParams, FakeBrowser, logIn } from '../../test/browser-flow';
import { ISSUER, testInstance } from '../../test/fixtures';

const hostile = `"><script>alert(1)</script><img src=x onerror=alert(2)>'\``;

describe('pages', () => {
  it('escapes every reflected value: state, username, and an error page', async () => {
    const t = await testInstance();
    const browser = new FakeBrowser(t.gatehouse);
    const page = await (await browser.get(authorizeUrl({ state: hostile }))).text();
    expect(page).not.toContain('<script>');
    expect(page).not.toContain('<img');
    // The state stays on the server and comes back exactly.
    const resumed = await browser.follow(
      await browser.submit(page, { username: 'demo', password: 'demo-password' }),
    );
    expect(callbackParams(resumed).get('state')).toBe(hostile);
    const again = await (await browser.get(authorizeUrl({ prompt: 'login' }))).text();
    const failed = await (await browser.submit(again, { username: hostile, password: 'x' })).text();
    expect(failed).not.toContain('<script>');
    expect(failed).toContain(escapeHtml(hostile));
  });

  it('escapes the client name on the consent page', async () => {
    const { memoryClientStore, hashClientSecret } = await import('@gatehousejs/core');
    const t = await testInstance({
      clients: memoryClientStore([
        {
          id: 'evil',
          name: hostile,
          type: 'confidential',
          secretHash: await hashClientSecret('s'),
          redirectUris: ['http://localhost:3000/callback'],
        },
      ]),
    });
    const browser = new FakeBrowser(t.gatehouse);
    const url = authorizeUrl({ client_id: 'evil', code_challenge: null, code_challenge_method: null });
    const consent = await (await browser.follow(await logIn(browser, url))).text();
    expect(consent).toContain('Allow access?');
    expect(consent).not.toContain('<script>');
  });

  it('escapeHtml covers quotes, angle brackets, ampersand and backtick', () => {
    expect(escapeHtml(`<a href="x" title='y'>&\``)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&#96;',
    );
  });

  it('uses the host renderers for login, consent, logout and error pages, with the security headers', async () => {
    const seen: LoginPageModel[] = [];
    const t = await testInstance({
      ui: {
        renderLogin: (model) => {
          seen.push(model);
          return defaultLoginPage(model).replace('<h1>Sign in</h1>', '<h1>ACME login</h1>');
        },
        renderConsent: (model) => `<!doctype html><p>consent for ${escapeHtml(model.clientName)}</p>`,
        renderLogout: (model) => `<!doctype html><p>logout ${model.state}</p>`,
        renderError: (model) => `<!doctype html><p>oops ${escapeHtml(model.error)} ${model.status}</p>`,
      },
    });
    const browser = new FakeBrowser(t.gatehouse);
    const login = await browser.get(authorizeUrl());
    expect(await login.text()).toContain('ACME login');
    expect(login.headers.get('x-frame-options')).toBe('DENY');
    expect(seen[0]).toMatchObject({
      action: '/demo/login',
      clientName: 'Demo Client',
      hiddenFields: { interaction: expect.any(String) },
    });
    expect(await (await browser.get(`${ISSUER}/logout`)).text()).toContain('logout signed-out');
    const error = await browser.get(authorizeUrl({ client_id: 'nobody' }));
    expect(error.status).toBe(400);
    expect(await error.text()).toContain('oops invalid_request 400');
    const consentUrl = authorizeUrl({
      client_id: 'other-client',
      code_challenge: null,
      code_challenge_method: null,
    });
    const page = await browser.get(consentUrl);
    const after = await browser.submit(await page.text(), { username: 'demo', password: 'demo-password' });
    expect(await (await browser.follow(after)).text()).toContain('consent for other-client');
  });
});
