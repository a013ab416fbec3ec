/**
 * Client ID metadata documents over real HTTP: documents served by local servers on 127.0.0.1,
 * fetched through `addressCheckingFetch` of the Node entry, used by authorize and token requests
 * of a Gatehouse instance. Every refusal is a 400 with a reason, never a 5xx, and a refused
 * address is never fetched.
 */
import { type ClientMetadataDocumentOptions, JWT_BEARER_ASSERTION_TYPE } from '@gatehousejs/core';
import { addressCheckingFetch } from '@gatehousejs/core/node';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, callbackParams, FakeBrowser, logIn } from '../../../test/browser-flow';
import { DocumentServer } from '../../../test/document-server';
import { ISSUER, PKCE_VERIFIER, post, REDIRECT_URI, testInstance } from '../../../test/fixtures';

const documents = new DocumentServer();
beforeAll(() => documents.start());
afterAll(() => documents.stop());

/** A valid document for `url`: a public client of the test redirect URI. */
const validDocument =
  (overrides: Record<string, unknown> = {}) =>
  (url: string) => ({
    client_id: url,
    client_name: 'Metadata App',
    redirect_uris: [REDIRECT_URI],
    grant_types: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_method: 'none',
    ...overrides,
  });

const loopbackOptions: ClientMetadataDocumentOptions = {
  allowLoopback: true,
  fetch: addressCheckingFetch(),
  timeoutMs: 300,
  maxBytes: 2048,
};

function instance(options: ClientMetadataDocumentOptions = loopbackOptions) {
  return testInstance({ clientMetadataDocuments: options });
}

/** The authorize page for `clientId` (third-party metadata clients always get the consent page). */
async function authorize(t: Awaited<ReturnType<typeof instance>>, clientId: string) {
  const browser = new FakeBrowser(t.gatehouse);
  const response = await browser.get(authorizeUrl({ client_id: clientId }));
  return { browser, response };
}

/**
 * The one description of a document that could not be fetched, is no JSON or does not name itself:
 * nothing about what (or whether) the host answered (issue 27 item 3).
 */
const UNUSABLE = /no client metadata document naming it could be fetched from it/;

/** Expects the authorization request for `clientId` refused with a 400 that names `reason`. */
async function expectRefused(t: Awaited<ReturnType<typeof instance>>, clientId: string, reason: RegExp) {
  const { response } = await authorize(t, clientId);
  expect(response.status).toBe(400);
  expect(response.headers.get('location')).toBeNull();
  const page = await response.text();
  expect(page).toContain('metadata document URL that cannot be used');
  expect(page).toMatch(reason);
}

describe('client ID metadata documents', () => {
  it('are advertised in the metadata only when enabled', async () => {
    const on = await instance();
    const off = await testInstance();
    const metadata = async (t: { gatehouse: { fetch(r: Request): Promise<Response> } }) =>
      (await t.gatehouse.fetch(new Request(`${ISSUER}/.well-known/oauth-authorization-server`))).json();
    expect((await metadata(on)).client_id_metadata_document_supported).toBe(true);
    expect((await metadata(off)).client_id_metadata_document_supported).toBeUndefined();
  });

  it('sign a user in for a document client, show its redirect host on consent, and redeem the code without a secret', async () => {
    const url = documents.json('/apps/good.json', validDocument(), { 'Cache-Control': 'max-age=600' });
    const t = await instance();
    const browser = new FakeBrowser(t.gatehouse);
    const consent = await browser.follow(await logIn(browser, authorizeUrl({ client_id: url })));
    expect(consent.status).toBe(200);
    const html = await consent.text();
    expect(html).toContain('Metadata App');
    expect(html).toContain('You will be sent back to <strong>localhost:3000</strong>');
    const code = callbackParams(await browser.submitAndFollow(html, { decision: 'allow' })).get('code')!;
    const token = await t.gatehouse.fetch(
      post('/oauth2/v1/token', {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT_URI,
        code_verifier: PKCE_VERIFIER,
        client_id: url,
      }),
    );
    expect(token.status).toBe(200);
    expect((await token.json()).refresh_token).toBeTruthy();
    // Kept for its max-age: the token request fetched nothing more.
    expect(documents.count(url)).toBe(1);
    t.clock.advance(601);
    await authorize(t, url);
    expect(documents.count(url)).toBe(2);
  });

  it('let a private_key_jwt document client authenticate with the keys its document lists', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const jwk = { ...(await exportJWK(publicKey)), kid: 'doc-key', alg: 'ES256', use: 'sig' };
    const url = documents.json(
      '/apps/keyed.json',
      validDocument({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [jwk] } }),
    );
    const t = await instance();
    const browser = new FakeBrowser(t.gatehouse);
    const consent = await browser.follow(await logIn(browser, authorizeUrl({ client_id: url })));
    const code = callbackParams(
      await browser.submitAndFollow(await consent.text(), { decision: 'allow' }),
    ).get('code')!;
    const exchange = (assertion?: string) =>
      t.gatehouse.fetch(
        post('/oauth2/v1/token', {
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT_URI,
          code_verifier: PKCE_VERIFIER,
          client_id: url,
          ...(assertion === undefined
            ? {}
            : { client_assertion_type: JWT_BEARER_ASSERTION_TYPE, client_assertion: assertion }),
        }),
      );
    // Registered for private_key_jwt: presenting no assertion is the wrong method.
    expect((await exchange()).status).toBe(401);
    const assertion = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: 'doc-key' })
      .setIssuer(url)
      .setSubject(url)
      .setAudience(ISSUER)
      .setJti(crypto.randomUUID())
      .setIssuedAt(Math.floor(t.clock.now() / 1000))
      .setExpirationTime(Math.floor(t.clock.now() / 1000) + 60)
      .sign(privateKey);
    const token = await exchange(assertion);
    expect(token.status).toBe(200);
    expect((await token.json()).access_token).toBeTruthy();
  });

  it('keep a document at least minCacheSeconds and at most maxCacheSeconds, whatever its headers say', async () => {
    const noStore = documents.json('/apps/no-store.json', validDocument(), { 'Cache-Control': 'no-store' });
    const forever = documents.json('/apps/forever.json', validDocument(), {
      'Cache-Control': 'max-age=99999999',
    });
    const t = await instance({ ...loopbackOptions, minCacheSeconds: 60, maxCacheSeconds: 3600 });
    await authorize(t, noStore);
    await authorize(t, forever);
    t.clock.advance(59);
    await authorize(t, noStore);
    expect(documents.count(noStore)).toBe(1);
    t.clock.advance(2);
    await authorize(t, noStore);
    expect(documents.count(noStore)).toBe(2);
    t.clock.advance(3600);
    await authorize(t, forever);
    expect(documents.count(forever)).toBe(2);
  });

  it('refuse private and loopback addresses without fetching them, unless loopback is allowed', async () => {
    const url = documents.json('/apps/private.json', validDocument());
    const strict = await instance({ fetch: addressCheckingFetch(), timeoutMs: 300 });
    await expectRefused(strict, url, /not https/);
    await expectRefused(strict, url.replace('http:', 'https:'), /loopback address/);
    await expectRefused(strict, 'https://10.1.2.3/client.json', /private address/);
    await expectRefused(strict, 'https://[fd00::1]/client.json', /unique-local/);
    await expectRefused(strict, 'https://169.254.169.254/latest/meta-data', /link-local/);
    expect(documents.count(url)).toBe(0);
  });

  it('refuse a DNS name resolving to a private address, checked at connection time', async () => {
    const url = documents.json('/apps/rebound.json', validDocument());
    const port = new URL(url).port;
    let resolved = 0;
    const t = await instance({
      timeoutMs: 300,
      fetch: addressCheckingFetch({
        resolve: async () => {
          resolved++;
          return [
            { address: '93.184.215.14', family: 4 },
            { address: '127.0.0.1', family: 4 },
          ];
        },
      }),
    });
    await expectRefused(t, `https://docs.example.test:${port}/apps/rebound.json`, UNUSABLE);
    expect(resolved).toBe(1);
    expect(documents.count(url)).toBe(0);
  });

  it('do not follow redirects', async () => {
    const target = documents.json('/apps/target.json', validDocument());
    documents.routes.set('/apps/moved.json', (_request, response) =>
      response.writeHead(302, { Location: target }).end(),
    );
    const t = await instance();
    await expectRefused(t, `${documents.origin}/apps/moved.json`, /redirect/);
    expect(documents.count(target)).toBe(0);
  });

  it('refuse documents over the size cap, declared or streamed', async () => {
    const big = documents.json('/apps/big.json', validDocument({ padding: 'x'.repeat(4000) }));
    documents.routes.set('/apps/streamed.json', (_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
      for (let i = 0; i < 10; i++) response.write(' '.repeat(500));
      response.end('{}');
    });
    const t = await instance();
    await expectRefused(t, big, UNUSABLE);
    await expectRefused(t, `${documents.origin}/apps/streamed.json`, UNUSABLE);
  });

  it('give up on a server slower than the deadline', async () => {
    documents.routes.set('/apps/slow.json', () => {}); // never answers
    documents.routes.set('/apps/trickle.json', (_request, response) => {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.write('{"client_id":'); // and never finishes
    });
    const t = await instance();
    await expectRefused(t, `${documents.origin}/apps/slow.json`, /within 300 ms/);
    await expectRefused(t, `${documents.origin}/apps/trickle.json`, /within 300 ms/);
  });

  it('refuse a document whose client_id is not exactly its URL', async () => {
    const t = await instance();
    const other = documents.json('/apps/other.json', validDocument());
    const copied = documents.json('/apps/copied.json', () => validDocument()(other));
    await expectRefused(t, copied, UNUSABLE);
    const trailing = documents.json('/apps/trailing.json', (url) => validDocument()(`${url}/`));
    await expectRefused(t, trailing, UNUSABLE);
  });

  it('refuse invalid redirect URIs, secrets, shared-secret methods and non-JSON', async () => {
    const t = await instance();
    const cases: [string, (url: string) => unknown, RegExp][] = [
      [
        'plain-http',
        validDocument({ redirect_uris: ['http://app.example/cb'] }),
        /neither https nor http on a loopback host/,
      ],
      ['fragment', validDocument({ redirect_uris: ['https://app.example/cb#x'] }), /fragment/],
      ['no-redirect', validDocument({ redirect_uris: [] }), /redirect_uris must be a non-empty array/],
      ['secret', validDocument({ client_secret: 's3cret' }), /must not contain a client secret/],
      [
        'basic',
        validDocument({ token_endpoint_auth_method: 'client_secret_basic' }),
        /none, private_key_jwt/,
      ],
    ];
    for (const [name, document, reason] of cases) {
      await expectRefused(t, documents.json(`/apps/${name}.json`, document), reason);
    }
    documents.routes.set('/apps/html.json', (_request, response) => response.writeHead(200).end('<html>'));
    await expectRefused(t, `${documents.origin}/apps/html.json`, UNUSABLE);
  });

  it('refuse malformed client_id URLs before any fetch', async () => {
    const t = await instance();
    await expectRefused(t, `${documents.origin}/`, /no path/);
    await expectRefused(t, `${documents.origin}/a/../b.json`, /dot segment/);
    await expectRefused(t, `${documents.origin}/apps/x.json#frag`, /fragment/);
    await expectRefused(t, 'https://user:pw@app.example/client.json', /user information/);
    expect([...documents.hits.keys()].some((path) => path.includes('b.json') || path === '/')).toBe(false);
  });

  it('leave ordinary client ids and configured clients alone', async () => {
    const t = await instance();
    const { response } = await authorize(t, 'demo-client');
    expect(response.status).toBe(200);
    const unknown = await authorize(t, 'no-such-client');
    expect(unknown.response.status).toBe(400);
    expect(await unknown.response.text()).toContain('The client is unknown');
  });
});
