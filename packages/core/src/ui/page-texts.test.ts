import { ConfigurationError } from '@gatehousejs/core';
import { escapeHtml } from '@gatehousejs/core/ui';
import { describe, expect, it } from 'vitest';
import { authorizeUrl, FakeBrowser, logIn } from '../../test/browser-flow';
import { ISSUER, testInstance } from '../../test/fixtures';

const hostile = `"><script>alert(1)</script>`;

/** The consent page of `other-client` (not first party) for `scope`, after logging in. */
async function consentPage(browser: FakeBrowser, scope: string): Promise<string> {
  const url = authorizeUrl({
    client_id: 'other-client',
    scope,
    code_challenge: null,
    code_challenge_method: null,
  });
  return (await browser.follow(await logIn(browser, url))).text();
}

describe('page texts and branding (ui options)', () => {
  it('labels the username field as configured, for apps that sign in by email', async () => {
    const t = await testInstance({ ui: { usernameLabel: 'Email address' } });
    const page = await (await new FakeBrowser(t.gatehouse).get(authorizeUrl())).text();
    expect(page).toContain('<label for="username">Email address</label>');
    expect(page).not.toContain('>Username<');
  });

  it('shows the product name and logo on every built-in page, with the logo origin allowed by the CSP', async () => {
    const t = await testInstance({
      ui: { productName: 'Acme', logoUrl: 'https://cdn.example.com/acme.svg' },
    });
    const browser = new FakeBrowser(t.gatehouse);
    const login = await browser.get(authorizeUrl());
    const html = await login.text();
    expect(html).toContain('<title>Sign in · Acme</title>');
    expect(html).toContain('<img src="https://cdn.example.com/acme.svg" alt="Acme">');
    expect(login.headers.get('content-security-policy')).toContain(
      "img-src 'self' data: https://cdn.example.com;",
    );
    const logout = await (await browser.get(`${ISSUER}/logout`)).text();
    expect(logout).toContain('alt="Acme"');
    const error = await (await browser.get(authorizeUrl({ client_id: 'nobody' }))).text();
    expect(error).toContain('alt="Acme"');
  });

  it('keeps the CSP closed to other origins when the logo is on the instance origin', async () => {
    const t = await testInstance({ ui: { productName: 'Acme', logoUrl: '/static/logo.png' } });
    const login = await new FakeBrowser(t.gatehouse).get(authorizeUrl());
    expect(await login.text()).toContain('<img src="/static/logo.png" alt="Acme">');
    expect(login.headers.get('content-security-policy')).toContain("img-src 'self' data:;");
  });

  it('escapes the product name, labels and texts', async () => {
    const t = await testInstance({
      ui: { productName: hostile, usernameLabel: hostile, texts: { signInButton: hostile } },
    });
    const page = await (await new FakeBrowser(t.gatehouse).get(authorizeUrl())).text();
    expect(page).not.toContain('<script>');
    expect(page).toContain(`<span>${escapeHtml(hostile)}</span>`);
    expect(page).toContain(`<label for="username">${escapeHtml(hostile)}</label>`);
  });

  it('shows scope descriptions on the consent page instead of the scope strings', async () => {
    const t = await testInstance({
      scopes: ['read', 'write', 'email', 'tickets:export'],
      ui: {
        scopeDescriptions: { read: 'Read your tickets', email: 'Your work email address' },
        texts: { consentTitle: 'Connect this app?', allowButton: 'Connect' },
      },
    });
    const page = await consentPage(new FakeBrowser(t.gatehouse), 'read email tickets:export');
    expect(page).toContain('<li title="read">Read your tickets</li>');
    // A host description overrides the built-in one of an OpenID Connect scope.
    expect(page).toContain('<li title="email">Your work email address</li>');
    expect(page).not.toContain('<code>read</code>');
    // Without a description the scope string is all there is to show.
    expect(page).toContain('<li><code>tickets:export</code></li>');
    expect(page).toContain('<h1>Connect this app?</h1>');
    expect(page).toContain('value="allow">Connect</button>');
  });

  it('shows the error code, what it means in plain words, and what went wrong', async () => {
    const t = await testInstance();
    const page = await new FakeBrowser(t.gatehouse).get(authorizeUrl({ client_id: 'nobody' }));
    expect(page.status).toBe(400);
    const html = await page.text();
    expect(html).toContain('Error code: <code>invalid_request</code>');
    expect(html).toContain('The application sent a request that cannot be processed.');
    expect(html).toMatch(/<p>[^<]*client[^<]*<\/p>/i);
  });

  it('gives a custom error renderer the explanation and the wording', async () => {
    const seen: unknown[] = [];
    const t = await testInstance({
      ui: {
        productName: 'Acme',
        renderError: (model) => {
          seen.push(model);
          return '<!doctype html><p>error</p>';
        },
      },
    });
    await new FakeBrowser(t.gatehouse).get(authorizeUrl({ client_id: 'nobody' }));
    expect(seen[0]).toMatchObject({
      error: 'invalid_request',
      status: 400,
      explanation: expect.stringContaining('cannot be processed'),
      texts: { productName: 'Acme', usernameLabel: 'Username' },
    });
  });

  it('keeps the built-in consent and error pages, with the configured wording, when only the login page is replaced', async () => {
    const t = await testInstance({
      ui: {
        productName: 'Acme',
        scopeDescriptions: { read: 'Read your tickets' },
        renderLogin: (model) =>
          `<!doctype html><form method="post" action="${escapeHtml(model.action)}">${Object.entries({
            ...model.hiddenFields,
            csrf_token: model.csrfToken,
          })
            .map(([n, v]) => `<input type="hidden" name="${escapeHtml(n)}" value="${escapeHtml(v)}">`)
            .join('')}<label>${escapeHtml(model.texts?.usernameLabel)}</label></form>`,
      },
    });
    const browser = new FakeBrowser(t.gatehouse);
    const login = await (await browser.get(authorizeUrl())).text();
    expect(login).toContain('<label>Username</label>');
    const consent = await consentPage(browser, 'read');
    expect(consent).toContain('<title>Allow access? · Acme</title>');
    expect(consent).toContain('Read your tickets');
    const error = await (await browser.get(authorizeUrl({ client_id: 'nobody' }))).text();
    expect(error).toContain('<title>Something went wrong · Acme</title>');
  });

  it('refuses unusable ui options at creation', async () => {
    await expect(testInstance({ ui: { usernameLabel: '' } })).rejects.toThrow(ConfigurationError);
    await expect(testInstance({ ui: { logoUrl: 'http://cdn.example.com/x.png' } })).rejects.toThrow(/https/);
    await expect(
      testInstance({ ui: { scopeDescriptions: { read: 42 as unknown as string } } }),
    ).rejects.toThrow(/ui\.scopeDescriptions\.read/);
    await expect(testInstance({ ui: { texts: { allowButton: 'x'.repeat(501) } } })).rejects.toThrow(
      /ui\.texts\.allowButton/,
    );
  });
});
