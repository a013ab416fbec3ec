/**
 * Clients anyone can create (RFC 7591 dynamic registration, client ID metadata documents) at the
 * authorization endpoint: their errors are shown, never redirected without the user's doing
 * (RFC 9700 §4.11.2), and the login and consent pages say that such a client registered itself,
 * with the host of its metadata document, never letting a name reorder or hide text.
 */
import type { ClientRecord, OutboundFetch } from '@gatehousejs/core';
import { memoryClientStore } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { authorizeUrl, callbackParams, FakeBrowser, logIn } from '../../../test/browser-flow';
import { ISSUER, REDIRECT_URI, testClients, testInstance } from '../../../test/fixtures';

const DOCUMENT_URL = 'https://client.example/oauth/metadata.json';

/** Serves client ID metadata documents from memory: `name` is each document's `client_name`. */
function documents(names: Record<string, string>): OutboundFetch {
  return async ({ url }) =>
    url.href in names
      ? Response.json({
          client_id: url.href,
          client_name: names[url.href],
          redirect_uris: [REDIRECT_URI],
          token_endpoint_auth_method: 'none',
        })
      : new Response('not found', { status: 404 });
}

async function setUp(
  names: Record<string, string> = { [DOCUMENT_URL]: 'Metadata App' },
  extra: ClientRecord[] = [],
) {
  const t = await testInstance({
    clients: memoryClientStore([...(await testClients()), ...extra]),
    dynamicRegistration: {},
    clientMetadataDocuments: { fetch: documents(names) },
  });
  const registered = await t.gatehouse.fetch(
    new Request(`${ISSUER}/oauth2/v1/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ client_name: 'Registered App', redirect_uris: [REDIRECT_URI] }),
    }),
  );
  expect(registered.status).toBe(201);
  const { client_id: registeredId } = (await registered.json()) as { client_id: string };
  return { t, registeredId };
}

describe('errors of self-registered clients (RFC 9700 §4.11.2)', () => {
  it('are shown on an error page, never redirected; a configured client still gets the redirect', async () => {
    const { t, registeredId } = await setUp();
    const browser = new FakeBrowser(t.gatehouse);
    const requests: Record<string, string | null>[] = [
      { response_type: 'token' }, // unsupported_response_type
      { prompt: 'none' }, // login_required: no session
      { request_uri: 'https://rp.example/request.jwt' }, // request_uri_not_supported
      { code_challenge: null }, // invalid_request: PKCE required of a public client
    ];
    for (const clientId of [registeredId, DOCUMENT_URL]) {
      for (const params of requests) {
        const response = await browser.get(authorizeUrl({ client_id: clientId, ...params }));
        expect(response.status).toBe(400);
        expect(response.headers.get('location')).toBeNull();
        expect(await response.text()).toMatch(
          /unsupported_response_type|login_required|request_uri_not_supported|invalid_request/,
        );
      }
    }
    // The same requests of a client the host configured go back to it (RFC 6749 §4.1.2.1).
    for (const params of requests) {
      const response = await browser.get(authorizeUrl({ client_id: 'demo-spa', ...params }));
      expect(callbackParams(response).get('error')).toMatch(
        /^(unsupported_response_type|login_required|request_uri_not_supported|invalid_request)$/,
      );
    }
  });

  it('still sends the user back with access_denied when the user chose Deny on the consent page', async () => {
    const { t, registeredId } = await setUp();
    for (const clientId of [registeredId, DOCUMENT_URL]) {
      const browser = new FakeBrowser(t.gatehouse);
      const consent = await browser.follow(await logIn(browser, authorizeUrl({ client_id: clientId })));
      expect(consent.status).toBe(200);
      const denied = callbackParams(
        await browser.follow(await browser.submit(await consent.text(), { decision: 'deny' })),
      );
      expect(denied.get('error')).toBe('access_denied');
      expect(denied.get('state')).toBe('xyz');
    }
  });
});

describe('how the login and consent pages name a client', () => {
  const BIDI = [
    '\u202e',
    '\u202a',
    '\u202b',
    '\u202c',
    '\u202d',
    '\u2066',
    '\u2067',
    '\u2068',
    '\u2069',
    '\u200e',
    '\u200f',
    '\u061c',
  ];

  it('say that a self-registered client registered itself, and from which host its document came', async () => {
    const { t, registeredId } = await setUp({ [DOCUMENT_URL]: 'Demo Client' });
    const login = async (clientId: string) =>
      (await new FakeBrowser(t.gatehouse).get(authorizeUrl({ client_id: clientId }))).text();
    const documentPage = await login(DOCUMENT_URL);
    expect(documentPage).toContain('Demo Client');
    expect(documentPage).toContain('registered itself from <strong>client.example</strong>');
    const registeredPage = await login(registeredId);
    expect(registeredPage).toContain('Registered App');
    expect(registeredPage).toContain('This application registered itself;');
    // A client of the host is not labelled.
    expect(await login('demo-client')).not.toContain('registered itself');
    // In the page's language, like every text of the catalog.
    const french = await (
      await new FakeBrowser(t.gatehouse).get(authorizeUrl({ client_id: DOCUMENT_URL, ui_locales: 'fr' }))
    ).text();
    expect(french).toContain(
      'Cette application s&#39;est enregistrée elle-même depuis <strong>client.example</strong> ;',
    );
    // The consent page says it too.
    const browser = new FakeBrowser(t.gatehouse);
    const consent = await browser.follow(await logIn(browser, authorizeUrl({ client_id: DOCUMENT_URL })));
    const consentPage = await consent.text();
    expect(consentPage).toContain('wants to act on your behalf');
    expect(consentPage).toContain('registered itself from <strong>client.example</strong>');
  });

  it('never show bidirectional controls or invisible characters of a name', async () => {
    const spoofed = `Demo Client${BIDI.join('')}\u200b\ufeff (evil)`;
    const { t } = await setUp({ [DOCUMENT_URL]: spoofed }, [
      { id: 'bidi-client', name: `Trusted \u202egnp.exe`, type: 'public', redirectUris: [REDIRECT_URI] },
    ]);
    const pages: string[] = [];
    for (const clientId of [DOCUMENT_URL, 'bidi-client']) {
      const browser = new FakeBrowser(t.gatehouse);
      pages.push(
        await (await browser.get(authorizeUrl({ client_id: clientId, login_hint: 'de\u202emo' }))).text(),
      );
      pages.push(
        await (await browser.follow(await logIn(browser, authorizeUrl({ client_id: clientId })))).text(),
      );
    }
    for (const html of pages) {
      // Hidden fields carry the request back unchanged (login_hint included): they are not shown.
      const page = html.replace(/<input type="hidden"[^>]*>/g, '');
      for (const control of [...BIDI, '\u200b', '\ufeff']) expect(page).not.toContain(control);
    }
    expect(pages[0]).toContain('<bdi>Demo Client (evil)</bdi>');
    expect(pages[2]).toContain('<bdi>Trusted gnp.exe</bdi>');
  });
});
