import { type ClientRecord, hashClientSecret, memoryClientStore } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { callbackParams, FakeBrowser, parseForm } from '../../../test/browser-flow';
import {
  basic,
  ISSUER,
  PKCE_CHALLENGE,
  PKCE_VERIFIER,
  post,
  REDIRECT_URI,
  type TestInstance,
  testClients,
  testInstance,
} from '../../../test/fixtures';

const PAR = '/oauth2/v1/par';
const DEMO = basic('demo-client', 'demo-secret');

/** The parameters of a valid request of demo-client, plus overrides (`null` removes). */
function pushed(params: Record<string, string | null> = {}): Record<string, string> {
  const all: Record<string, string | null> = {
    response_type: 'code',
    redirect_uri: REDIRECT_URI,
    scope: 'read',
    state: 'pushed-state',
    code_challenge: PKCE_CHALLENGE,
    code_challenge_method: 'S256',
    ...params,
  };
  return Object.fromEntries(Object.entries(all).filter(([, v]) => v !== null)) as Record<string, string>;
}

/** Whether an authorize answer sends the browser to the login page of an interaction. */
async function toLoginPage(answer: Promise<Response>): Promise<boolean> {
  const response = await answer;
  return (
    response.status === 303 && response.headers.get('location')!.startsWith(`${ISSUER}/login?interaction=`)
  );
}

async function push(t: TestInstance, params = pushed(), auth: string | null = DEMO) {
  return t.gatehouse.fetch(post(PAR, params, auth === null ? {} : { Authorization: auth }));
}

async function requestUri(t: TestInstance, params = pushed(), auth: string | null = DEMO): Promise<string> {
  const response = await push(t, params, auth);
  expect(response.status).toBe(201);
  return ((await response.json()) as { request_uri: string }).request_uri;
}

const authorizeWith = (query: Record<string, string>) =>
  `${ISSUER}/oauth2/v1/authorize?${new URLSearchParams(query)}`;

function exchange(t: TestInstance, code: string) {
  return t.gatehouse.fetch(
    post(
      '/oauth2/v1/token',
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: PKCE_VERIFIER },
      { Authorization: DEMO },
    ),
  );
}

async function withClients(extra: ClientRecord[], overrides = {}) {
  return testInstance({ clients: memoryClientStore([...(await testClients()), ...extra]), ...overrides });
}

describe('pushed authorization requests (RFC 9126): the endpoint', () => {
  it('is in the RFC 8414 metadata and the OpenID Connect discovery document', async () => {
    const t = await testInstance();
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const metadata = await (await t.gatehouse.fetch(new Request(ISSUER + path))).json();
      expect(metadata).toMatchObject({
        pushed_authorization_request_endpoint: `${ISSUER}/oauth2/v1/par`,
        require_pushed_authorization_requests: false,
      });
    }
  });

  it('answers 201 with a request_uri of at least 128 random bits and expires_in, never cached', async () => {
    const t = await testInstance();
    const response = await push(t);
    expect(response.status).toBe(201);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = (await response.json()) as { request_uri: string; expires_in: number };
    expect(body.request_uri).toMatch(/^urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]{43}$/);
    expect(body.expires_in).toBe(60);
    expect(await requestUri(t)).not.toBe(body.request_uri);
  });

  it('authenticates the client as the token endpoint does: a wrong secret is 401 invalid_client', async () => {
    const t = await testInstance();
    const response = await push(t, pushed(), basic('demo-client', 'wrong'));
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_client');
    expect(response.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect((await push(t, pushed(), null)).status).toBe(401);
    const post = await push(t, pushed({ client_id: 'demo-client', client_secret: 'demo-secret' }), null);
    expect(post.status).toBe(401); // demo-client is registered for client_secret_basic
  });

  it('refuses a client_id in the body naming another client than the credentials', async () => {
    const t = await testInstance();
    const response = await push(t, pushed({ client_id: 'demo-spa' }));
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_request');
  });

  it('validates like the authorization endpoint: an unregistered redirect_uri is 400', async () => {
    const t = await testInstance();
    const response = await push(t, pushed({ redirect_uri: 'https://evil.example/cb' }));
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_request');
  });

  it('requires PKCE of a public client: without code_challenge 400 invalid_request, with it 201', async () => {
    const t = await testInstance();
    const without = await push(
      t,
      pushed({ client_id: 'demo-spa', code_challenge: null, code_challenge_method: null }),
      null,
    );
    expect(without.status).toBe(400);
    expect(((await without.json()) as { error: string }).error).toBe('invalid_request');
    expect((await push(t, pushed({ client_id: 'demo-spa' }), null)).status).toBe(201);
  });

  it('limits pushes of public clients per client network, not those of confidential clients', async () => {
    const t = await testInstance({ pushedAuthorizationRequests: { maxPublicPushesPerAddress: 2 } });
    const publicPush = () => push(t, pushed({ client_id: 'demo-spa' }), null);
    expect((await publicPush()).status).toBe(201);
    expect((await publicPush()).status).toBe(201);
    const over = await publicPush();
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await push(t)).status).toBe(201);
  });

  it('answers the error codes of the authorization endpoint as JSON 400', async () => {
    const t = await testInstance({ scopes: ['read'] });
    const cases: [Record<string, string | null>, string][] = [
      [{ scope: 'admin' }, 'invalid_scope'],
      [{ response_type: 'token' }, 'unsupported_response_type'],
      [{ code_challenge_method: 'plain' }, 'invalid_request'],
      // RFC 9101: not a request object of this client (it registered no keys).
      [{ request: 'eyJ' }, 'invalid_request_object'],
      [{ request_uri: 'urn:ietf:params:oauth:request_uri:abc' }, 'invalid_request'],
    ];
    for (const [params, error] of cases) {
      const response = await push(t, pushed(params));
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: string }).error).toBe(error);
    }
  });
});

describe('pushed authorization requests (RFC 9126): at the authorization endpoint', () => {
  it('runs the whole code flow from client_id and request_uri; the pushed parameters win', async () => {
    const t = await testInstance();
    const uri = await requestUri(t);
    const browser = new FakeBrowser(t.gatehouse);
    // Parameters beside client_id and request_uri are not read (RFC 9126 §4).
    const page = await browser.get(
      authorizeWith({
        client_id: 'demo-client',
        request_uri: uri,
        redirect_uri: 'https://evil.example/cb',
        scope: 'write',
        state: 'other',
      }),
    );
    expect(page.status).toBe(200);
    const html = await page.text();
    const { fields } = parseForm(html);
    // The form carries the interaction's reference, not the parameters, which therefore cannot be altered.
    expect(Object.keys(fields).sort()).toEqual(['csrf_token', 'interaction']);
    const afterLogin = await browser.submit(html, { username: 'demo', password: 'demo-password' });
    expect(afterLogin.status).toBe(303);
    const redirect = await browser.follow(afterLogin);
    const query = callbackParams(redirect);
    expect(redirect.headers.get('location')!.startsWith(`${REDIRECT_URI}?`)).toBe(true);
    expect(query.get('state')).toBe('pushed-state');
    expect(query.get('iss')).toBe(ISSUER);
    const tokens = await exchange(t, query.get('code')!);
    expect(tokens.status).toBe(200);
    expect(((await tokens.json()) as { scope: string }).scope).toBe('read');
  });

  it('uses a request_uri once: a second use gets a 400 page, not the login page', async () => {
    const t = await testInstance();
    const uri = await requestUri(t);
    const url = authorizeWith({ client_id: 'demo-client', request_uri: uri });
    expect(await toLoginPage(t.gatehouse.fetch(new Request(url)))).toBe(true);
    const again = await t.gatehouse.fetch(new Request(url));
    expect(again.status).toBe(400);
    expect(again.headers.get('location')).toBeNull();
    const html = await again.text();
    expect(html).not.toContain('name="password"');
    expect(html).toContain('request_uri');
  });

  it('binds a request_uri to its client and refuses unknown ones with a 400 page', async () => {
    const t = await testInstance();
    const uri = await requestUri(t);
    for (const query of <Record<string, string>[]>[
      { client_id: 'demo-spa', request_uri: uri },
      { client_id: 'demo-client', request_uri: 'urn:ietf:params:oauth:request_uri:unknown' },
      { request_uri: uri },
    ]) {
      const response = await t.gatehouse.fetch(new Request(authorizeWith(query)));
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
    }
    // Another client's attempt did not use it up.
    const owner = t.gatehouse.fetch(
      new Request(authorizeWith({ client_id: 'demo-client', request_uri: uri })),
    );
    expect(await toLoginPage(owner)).toBe(true);
  });

  it('answers request_uri_not_supported for a request_uri this server did not issue', async () => {
    const t = await testInstance();
    const response = await t.gatehouse.fetch(
      new Request(
        authorizeWith({
          client_id: 'demo-client',
          response_type: 'code',
          request_uri: 'https://client.example/r.jwt',
        }),
      ),
    );
    expect(callbackParams(response).get('error')).toBe('request_uri_not_supported');
  });

  it('expires a request_uri after requestUriTtl seconds', async () => {
    const t = await testInstance({ pushedAuthorizationRequests: { requestUriTtl: 30 } });
    const response = await push(t);
    expect(((await response.json()) as { expires_in: number }).expires_in).toBe(30);
    const uri = await requestUri(t);
    t.clock.advance(31);
    const late = await t.gatehouse.fetch(
      new Request(authorizeWith({ client_id: 'demo-client', request_uri: uri })),
    );
    expect(late.status).toBe(400);
  });

  it('issues one code per pushed request, and keeps the login round trip with prompt=login', async () => {
    const t = await testInstance();
    const uri = await requestUri(t, pushed({ prompt: 'login', max_age: '0' }));
    const browser = new FakeBrowser(t.gatehouse);
    const page = await browser.get(authorizeWith({ client_id: 'demo-client', request_uri: uri }));
    const afterLogin = await browser.submit(await page.text(), {
      username: 'demo',
      password: 'demo-password',
    });
    const continued = afterLogin.headers.get('location')!;
    const redirect = await browser.follow(afterLogin);
    expect(callbackParams(redirect).get('code')).toBeTruthy();
    // The in-flight reference ended with the code.
    const again = await browser.get(continued);
    expect(again.status).toBe(400);
    expect(again.headers.get('location')).toBeNull();
  });

  it('carries a third-party client through the consent page by reference', async () => {
    const t = await testInstance();
    const uri = await requestUri(
      t,
      pushed({ code_challenge: null, code_challenge_method: null }),
      basic('other-client', 'other-secret'),
    );
    const browser = new FakeBrowser(t.gatehouse);
    const page = await browser.get(authorizeWith({ client_id: 'other-client', request_uri: uri }));
    const consent = await browser.follow(
      await browser.submit(await page.text(), { username: 'demo', password: 'demo-password' }),
    );
    const html = await consent.text();
    expect(Object.keys(parseForm(html).fields).sort()).toEqual(['csrf_token', 'interaction']);
    const query = callbackParams(await browser.follow(await browser.submit(html, { decision: 'allow' })));
    expect(query.get('code')).toBeTruthy();
    expect(query.get('state')).toBe('pushed-state');
  });

  it('refuses a plain request of a client that requires pushed requests with invalid_request', async () => {
    const t = await withClients([
      {
        id: 'par-only',
        type: 'confidential',
        secretHash: await hashClientSecret('par-secret'),
        redirectUris: [REDIRECT_URI],
        firstParty: true,
        requirePushedAuthorizationRequests: true,
      },
    ]);
    const plain = await t.gatehouse.fetch(new Request(authorizeWith({ client_id: 'par-only', ...pushed() })));
    const query = callbackParams(plain);
    expect(query.get('error')).toBe('invalid_request');
    expect(plain.headers.get('location')!.startsWith(`${REDIRECT_URI}?`)).toBe(true);
    const uri = await requestUri(t, pushed(), basic('par-only', 'par-secret'));
    const page = t.gatehouse.fetch(new Request(authorizeWith({ client_id: 'par-only', request_uri: uri })));
    expect(await toLoginPage(page)).toBe(true);
  });

  it('refuses every plain request when the instance requires pushed requests', async () => {
    const t = await testInstance({ pushedAuthorizationRequests: { required: true } });
    const metadata = await (
      await t.gatehouse.fetch(new Request(`${ISSUER}/.well-known/oauth-authorization-server`))
    ).json();
    expect(metadata.require_pushed_authorization_requests).toBe(true);
    const plain = await t.gatehouse.fetch(
      new Request(authorizeWith({ client_id: 'demo-client', ...pushed() })),
    );
    expect(callbackParams(plain).get('error')).toBe('invalid_request');
    const uri = await requestUri(t);
    const page = t.gatehouse.fetch(
      new Request(authorizeWith({ client_id: 'demo-client', request_uri: uri })),
    );
    expect(await toLoginPage(page)).toBe(true);
  });

  it('echoes the pushed state exactly on an error redirect of the authorization endpoint', async () => {
    const t = await testInstance();
    for (const state of ['a b  c ', 'état ✓ 日本語 🙂 & = + % #', 's'.repeat(2048)]) {
      const uri = await requestUri(t, pushed({ state, prompt: 'none' }));
      const response = await t.gatehouse.fetch(
        new Request(authorizeWith({ client_id: 'demo-client', request_uri: uri })),
      );
      const query = callbackParams(response);
      expect(query.get('error')).toBe('login_required'); // nobody is signed in
      expect(query.get('state')).toBe(state);
    }
    // A state the authorization endpoint refuses is refused at the push, as JSON (no redirect yet).
    for (const state of ['a\u0001b', 's'.repeat(2049)]) {
      const refused = await push(t, pushed({ state }));
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: string }).error).toBe('invalid_request');
    }
  });

  it('refuses an over-large pushed request without storing it', async () => {
    const t = await testInstance();
    const response = await push(
      t,
      pushed({ nonce: 'n'.repeat(500), login_hint: 'x'.repeat(200), state: 's'.repeat(17_000) }),
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_request');
  });
});
