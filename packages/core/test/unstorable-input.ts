import type { GatehouseStorage } from '@gatehousejs/core';
import { expect } from 'vitest';
import { authorizeUrl, callbackParams, FakeBrowser, signIn } from './browser-flow';
import { basic, ISSUER, post, testInstance } from './fixtures';

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };

/**
 * NUL bytes, other control characters and unpaired surrogates in identifiers and stored strings
 * are refused with a 400 before any storage call, over HTTP, whatever the engine behind `storage`
 * (PostgreSQL's `text` and `jsonb` cannot hold them and used to answer 503). Engine packages call
 * it with their storage; the core runs it on memory.
 */
export async function expectUnstorableInputRefused(storage?: GatehouseStorage): Promise<void> {
  const t = await testInstance({ ...(storage ? { storage } : {}), dynamicRegistration: {} });
  const fetch = (request: Request) => t.gatehouse.fetch(request);
  const expectInvalidRequest = async (response: Response) => {
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_request');
  };

  // authorize: an unknown-looking client_id is shown as an error page, never looked up.
  for (const clientId of ['\u0000', 'demo-client\u0000', 'a\u0007b']) {
    const page = await fetch(
      new Request(authorizeUrl({ client_id: clientId }), { headers: { Accept: 'text/html' } }),
    );
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('invalid_request');
  }

  // token, introspect, revoke: in the body and in Basic credentials.
  for (const path of ['/oauth2/v1/token', '/oauth2/v1/introspect', '/oauth2/v1/revoke']) {
    await expectInvalidRequest(
      await fetch(
        post(path, {
          grant_type: 'client_credentials',
          token: 'anything',
          client_id: '\u0000',
          client_secret: 'x',
        }),
      ),
    );
    // A Basic header that cannot name a client is a failed client authentication (RFC 6749 §5.2).
    const inBasic = await fetch(
      new Request(ISSUER + path, {
        method: 'POST',
        headers: { ...FORM, Authorization: basic('\u0000', 'x') },
        body: 'grant_type=client_credentials&token=anything',
      }),
    );
    expect(inBasic.status).toBe(401);
    expect(((await inBasic.json()) as { error: string }).error).toBe('invalid_client');
  }

  // RFC 7591 registration: NUL or an unpaired surrogate anywhere in the metadata.
  for (const body of [
    '{"client_name":"a\\u0000b","redirect_uris":["https://app.example/cb"]}',
    '{"client_name":"\\ud800","redirect_uris":["https://app.example/cb"]}',
    '{"redirect_uris":["https://app.example/cb"],"contacts":["x\\udc00@example.com"]}',
    '{"redirect_uris":["https://app.example/cb"],"software_id":"id\\u001b[2J"}',
  ]) {
    const response = await fetch(
      new Request(`${ISSUER}/oauth2/v1/register`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body,
      }),
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_client_metadata');
  }
  // RFC 7592: a NUL in the client id of the configuration URL is just an unknown client.
  const configuration = await fetch(
    new Request(`${ISSUER}/oauth2/v1/register/%00`, { headers: { Authorization: 'Bearer x' } }),
  );
  expect(configuration.status).toBe(401);

  // A nonce (stored with the code) or a state with a NUL, from a signed-in user: the client is
  // told invalid_request, and no code is issued.
  const browser = new FakeBrowser(t.gatehouse);
  expect((await signIn(browser, authorizeUrl({ scope: 'openid' }))).status).toBe(303);
  const withNonce = callbackParams(await browser.get(authorizeUrl({ scope: 'openid', nonce: 'n\u0000' })));
  expect(withNonce.get('error')).toBe('invalid_request');
  expect(withNonce.get('code')).toBeNull();
  const withState = callbackParams(await browser.get(authorizeUrl({ state: 's\u0000' })));
  expect(withState.get('error')).toBe('invalid_request');
  expect(withState.get('code')).toBeNull();
  // Non-ASCII text that is well formed is not refused.
  const accented = callbackParams(await browser.get(authorizeUrl({ state: 'été 😀' })));
  expect(accented.get('code')).not.toBeNull();
  expect(accented.get('state')).toBe('été 😀');
}
