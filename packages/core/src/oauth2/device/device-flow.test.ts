import {
  type ClientRecord,
  ConfigurationError,
  DEVICE_CODE_GRANT,
  type GatehouseEvent,
  hashClientSecret,
  memoryClientStore,
} from '@gatehousejs/core';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { FakeBrowser, parseForm } from '../../../test/browser-flow';
import {
  basic,
  ISSUER,
  post,
  type TestInstance,
  type TestOptions,
  testClients,
  testInstance,
} from '../../../test/fixtures';
import { DEVICE_AUTHORIZATION_DEFAULTS } from './settings.js';

const RESOURCE = 'https://mcp.example.com/mcp';
const {
  codeLifetimeSeconds: DEVICE_CODE_TTL_SECONDS,
  maxFailedLookups: MAX_FAILED_USER_CODE_LOOKUPS,
  maxPublicRequestsPerAddress: MAX_PUBLIC_DEVICE_REQUESTS_PER_ADDRESS,
  maxLookupsPerAddress: MAX_USER_CODE_LOOKUPS_PER_ADDRESS,
} = DEVICE_AUTHORIZATION_DEFAULTS;

async function deviceClients(): Promise<ClientRecord[]> {
  return [
    ...(await testClients()),
    {
      id: 'cli',
      name: 'Demo CLI',
      type: 'public',
      tokenEndpointAuthMethod: 'none',
      redirectUris: [],
      grantTypes: [DEVICE_CODE_GRANT, 'refresh_token'],
      scopes: ['openid', 'profile', 'offline_access', 'read'],
    },
    {
      id: 'other-cli',
      type: 'public',
      tokenEndpointAuthMethod: 'none',
      redirectUris: [],
      grantTypes: [DEVICE_CODE_GRANT],
    },
    {
      id: 'tv',
      name: 'Living room TV',
      type: 'confidential',
      secretHash: await hashClientSecret('tv-secret'),
      redirectUris: [],
      grantTypes: [DEVICE_CODE_GRANT],
    },
  ];
}

/** An instance with device clients; each request's address comes from `X-Test-Address`. */
async function deviceInstance(
  overrides: TestOptions = {},
): Promise<TestInstance & { readonly events: GatehouseEvent[] }> {
  const events: GatehouseEvent[] = [];
  const t = await testInstance({
    onEvent: (event) => events.push(event),
    ...overrides,
    clients: memoryClientStore(await deviceClients()),
    resources: [RESOURCE],
    rateLimit: { clientAddress: (request) => request.headers.get('x-test-address') ?? '198.51.100.7' },
  });
  return Object.assign(t, { events });
}

interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

async function startDevice(
  t: TestInstance,
  form: Record<string, string> = { client_id: 'cli', scope: 'openid profile offline_access' },
  headers: Record<string, string> = {},
): Promise<DeviceAuthorization> {
  const response = await t.gatehouse.fetch(post('/oauth2/v1/device_authorization', form, headers));
  if (response.status !== 200)
    throw new Error(`device authorization: ${response.status} ${await response.text()}`);
  return (await response.json()) as DeviceAuthorization;
}

function poll(t: TestInstance, deviceCode: string, clientId = 'cli', extra: Record<string, string> = {}) {
  return t.gatehouse.fetch(
    post('/oauth2/v1/token', {
      grant_type: DEVICE_CODE_GRANT,
      device_code: deviceCode,
      client_id: clientId,
      ...extra,
    }),
  );
}

async function pollError(t: TestInstance, deviceCode: string, clientId = 'cli'): Promise<string> {
  const response = await poll(t, deviceCode, clientId);
  expect(response.status).toBe(400);
  return ((await response.json()) as { error: string }).error;
}

/** Enters the code on the verification page, signs in, and returns the confirmation page's HTML. */
async function reachConfirmation(_t: TestInstance, browser: FakeBrowser, userCode: string): Promise<string> {
  const form = await browser.get(`${ISSUER}/device`);
  const login = await browser.submitAndFollow(await form.text(), { user_code: userCode });
  expect(login.status).toBe(200);
  const loginHtml = await login.text();
  expect(loginHtml).toContain('name="password"');
  const signedIn = await browser.submit(loginHtml, { username: 'demo', password: 'demo-password' });
  expect(signedIn.status).toBe(303);
  const confirm = await browser.follow(signedIn);
  expect(confirm.status).toBe(200);
  return confirm.text();
}

async function approve(t: TestInstance, userCode: string, decision: 'allow' | 'deny' = 'allow') {
  const browser = new FakeBrowser(t.gatehouse);
  const html = await reachConfirmation(t, browser, userCode);
  return { browser, response: await browser.submit(html, { decision }) };
}

describe('device authorization endpoint (RFC 8628 §3.1–§3.2)', () => {
  it('is named in the authorization server metadata and the OpenID discovery document', async () => {
    const t = await deviceInstance();
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const metadata = (await (await t.gatehouse.fetch(new Request(ISSUER + path))).json()) as Record<
        string,
        unknown
      >;
      expect(metadata.device_authorization_endpoint).toBe(`${ISSUER}/oauth2/v1/device_authorization`);
      expect(metadata.grant_types_supported).toContain(DEVICE_CODE_GRANT);
    }
  });

  it('answers a public client with a device code, a XXXX-XXXX user code, the verification URIs, lifetime and interval', async () => {
    const t = await deviceInstance();
    const response = await t.gatehouse.fetch(
      post('/oauth2/v1/device_authorization', { client_id: 'cli', scope: 'openid profile' }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toContain('no-store');
    const body = (await response.json()) as DeviceAuthorization;
    expect(body.device_code).toMatch(/^[A-Za-z0-9_-]{43}$/); // 256 bits
    expect(body.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(body.verification_uri).toBe(`${ISSUER}/device`);
    expect(body.verification_uri_complete).toBe(`${ISSUER}/device?user_code=${body.user_code}`);
    expect(body.expires_in).toBe(DEVICE_CODE_TTL_SECONDS);
    expect(body.interval).toBe(5);
    const second = await startDevice(t);
    expect(second.device_code).not.toBe(body.device_code);
    expect(second.user_code).not.toBe(body.user_code);
  });

  it('authenticates confidential clients as the token endpoint does', async () => {
    const t = await deviceInstance();
    const ok = await t.gatehouse.fetch(
      post('/oauth2/v1/device_authorization', {}, { Authorization: basic('tv', 'tv-secret') }),
    );
    expect(ok.status).toBe(200);
    const wrong = await t.gatehouse.fetch(
      post('/oauth2/v1/device_authorization', {}, { Authorization: basic('tv', 'nope') }),
    );
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect((await wrong.json()).error).toBe('invalid_client');
    // A confidential client cannot pass as public by sending only its id.
    const unauthenticated = await t.gatehouse.fetch(
      post('/oauth2/v1/device_authorization', { client_id: 'tv' }),
    );
    expect(unauthenticated.status).toBe(401);
  });

  it('refuses clients not registered for the grant, unknown scopes and unknown resources', async () => {
    const t = await deviceInstance();
    const noGrant = await t.gatehouse.fetch(
      post('/oauth2/v1/device_authorization', { client_id: 'demo-spa' }),
    );
    expect(noGrant.status).toBe(400);
    expect((await noGrant.json()).error).toBe('unauthorized_client');
    const scope = await t.gatehouse.fetch(
      post('/oauth2/v1/device_authorization', { client_id: 'cli', scope: 'openid admin' }),
    );
    expect((await scope.json()).error).toBe('invalid_scope');
    const resource = await t.gatehouse.fetch(
      post('/oauth2/v1/device_authorization', {
        client_id: 'cli',
        resource: 'https://elsewhere.example/api',
      }),
    );
    expect((await resource.json()).error).toBe('invalid_target');
  });

  it('refuses a request that would store more than the record bound', async () => {
    const t = await deviceInstance();
    const scope = Array.from({ length: 4000 }, (_, i) => `scope-${i}`).join(' ');
    const response = await t.gatehouse.fetch(
      post('/oauth2/v1/device_authorization', { client_id: 'other-cli', scope }),
    );
    expect(response.status).toBe(400);
    expect((await response.json()).error).toBe('invalid_request');
  });

  it('bounds the device authorizations one address starts with a public client', async () => {
    const t = await deviceInstance();
    for (let i = 0; i < MAX_PUBLIC_DEVICE_REQUESTS_PER_ADDRESS; i++) await startDevice(t);
    const refused = await t.gatehouse.fetch(post('/oauth2/v1/device_authorization', { client_id: 'cli' }));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address, and a confidential client, are not affected.
    await startDevice(t, { client_id: 'cli' }, { 'X-Test-Address': '192.0.2.1' });
    const tv = await t.gatehouse.fetch(
      post('/oauth2/v1/device_authorization', {}, { Authorization: basic('tv', 'tv-secret') }),
    );
    expect(tv.status).toBe(200);
  });
});

describe('device access token request (RFC 8628 §3.4–§3.5)', () => {
  it('issues access, refresh and ID tokens after the user allows, once', async () => {
    const events: GatehouseEvent[] = [];
    const t = await deviceInstance({ onEvent: (event) => events.push(event) });
    const device = await startDevice(t, {
      client_id: 'cli',
      scope: 'openid profile offline_access',
      resource: RESOURCE,
    });
    const { response } = await approve(t, device.user_code);
    expect(response.status).toBe(200);
    t.clock.advance(5);
    const tokens = await poll(t, device.device_code);
    expect(tokens.status).toBe(200);
    const body = (await tokens.json()) as Record<string, string>;
    expect(body.scope).toBe('openid profile offline_access');
    expect(body.refresh_token).toBeTruthy();
    const idToken = decodeJwt(body.id_token!);
    expect(idToken.sub).toBe('user-1');
    expect([idToken.aud].flat()).toContain('cli');
    expect(idToken.name).toBe('Demo User');
    expect(idToken.auth_time).toBe(Math.floor(t.clock.now() / 1000) - 5);
    expect(events.map((event) => event.type)).toEqual(
      expect.arrayContaining(['device.approved', 'login.succeeded', 'token.issued']),
    );
    const access = decodeJwt(body.access_token!);
    expect(access.sub).toBe('user-1');
    expect(access.client_id).toBe('cli');
    expect([access.aud].flat()).toEqual([RESOURCE]);
    // Single use: the code is gone.
    t.clock.advance(5);
    expect(await pollError(t, device.device_code)).toBe('invalid_grant');
    // The refresh token works as for the code flow.
    const refreshed = await t.gatehouse.fetch(
      post('/oauth2/v1/token', {
        grant_type: 'refresh_token',
        refresh_token: body.refresh_token!,
        client_id: 'cli',
      }),
    );
    expect(refreshed.status).toBe(200);
  });

  it('redeems an approved code once when two polls race', async () => {
    const t = await deviceInstance();
    const device = await startDevice(t);
    await approve(t, device.user_code);
    t.clock.advance(5);
    const statuses = (await Promise.all([poll(t, device.device_code), poll(t, device.device_code)])).map(
      (r) => r.status,
    );
    expect(statuses.sort()).toEqual([200, 400]);
  });

  it('answers authorization_pending, and slow_down (interval + 5 s) to a device polling too fast', async () => {
    const t = await deviceInstance();
    const device = await startDevice(t);
    expect(await pollError(t, device.device_code)).toBe('slow_down'); // before the first interval
    t.clock.advance(10);
    expect(await pollError(t, device.device_code)).toBe('authorization_pending'); // interval is 10 now
    t.clock.advance(9);
    expect(await pollError(t, device.device_code)).toBe('slow_down'); // 15 now
    t.clock.advance(15);
    expect(await pollError(t, device.device_code)).toBe('authorization_pending');
    t.clock.advance(15);
    expect(await pollError(t, device.device_code)).toBe('authorization_pending');
  });

  it('answers access_denied when the user denies', async () => {
    const events: GatehouseEvent[] = [];
    const t = await deviceInstance({ onEvent: (event) => events.push(event) });
    const device = await startDevice(t);
    const { response } = await approve(t, device.user_code, 'deny');
    expect(response.status).toBe(200);
    t.clock.advance(5);
    expect(await pollError(t, device.device_code)).toBe('access_denied');
    expect(events).toContainEqual({ type: 'device.denied', clientId: 'cli', userId: 'user-1' });
  });

  it('answers expired_token after the code expires, and the page no longer takes its user code', async () => {
    const t = await deviceInstance();
    const device = await startDevice(t);
    t.clock.advance(DEVICE_CODE_TTL_SECONDS);
    expect(await pollError(t, device.device_code)).toBe('expired_token');
    const browser = new FakeBrowser(t.gatehouse);
    const form = await browser.get(device.verification_uri);
    const entered = await browser.submit(await form.text(), { user_code: device.user_code });
    expect(entered.status).toBe(400);
    expect(await entered.text()).toContain('name="user_code"');
  });

  it('answers invalid_grant to another client polling the code, and its own client still redeems it', async () => {
    const t = await deviceInstance();
    const device = await startDevice(t);
    await approve(t, device.user_code);
    t.clock.advance(5);
    expect(await pollError(t, device.device_code, 'other-cli')).toBe('invalid_grant');
    const tv = await t.gatehouse.fetch(
      post(
        '/oauth2/v1/token',
        { grant_type: DEVICE_CODE_GRANT, device_code: device.device_code },
        { Authorization: basic('tv', 'tv-secret') },
      ),
    );
    expect((await tv.json()).error).toBe('invalid_grant');
    expect((await poll(t, device.device_code)).status).toBe(200);
  });

  it('issues nothing for an approval made before revokeUser', async () => {
    const t = await deviceInstance();
    const device = await startDevice(t);
    await approve(t, device.user_code);
    t.clock.advance(1);
    await t.gatehouse.revokeUser('user-1');
    t.clock.advance(5);
    expect(await pollError(t, device.device_code)).toBe('invalid_grant');
  });

  it('answers invalid_grant to an unknown device code, and invalid_request without one', async () => {
    const t = await deviceInstance();
    expect(await pollError(t, 'not-a-device-code')).toBe('invalid_grant');
    const missing = await t.gatehouse.fetch(
      post('/oauth2/v1/token', { grant_type: DEVICE_CODE_GRANT, client_id: 'cli' }),
    );
    expect((await missing.json()).error).toBe('invalid_request');
  });

  it('refuses the grant to a client not registered for it', async () => {
    const t = await deviceInstance();
    const device = await startDevice(t);
    const response = await poll(t, device.device_code, 'demo-spa');
    expect((await response.json()).error).toBe('unauthorized_client');
  });
});

describe('verification page (RFC 8628 §3.3)', () => {
  it('prefills the code form from verification_uri_complete, and asks to sign in before confirming', async () => {
    const t = await deviceInstance();
    const device = await startDevice(t);
    const browser = new FakeBrowser(t.gatehouse);
    const page = await browser.get(device.verification_uri_complete);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toMatch(
      new RegExp(`<input type="text" id="user_code" name="user_code" value="${device.user_code}"`),
    );
    expect(html).toMatch(/<button type="submit">/);
    // The fake browser posts hidden fields only: post the text input's prefilled value as a browser would.
    const prefilled = /name="user_code" value="([^"]*)"/.exec(html)![1]!;
    const login = await browser.submitAndFollow(html, { user_code: prefilled });
    expect(await login.text()).toContain('name="password"');
  });

  it('shows the client, scopes, resources and the code to compare, with Allow and Deny buttons', async () => {
    const t = await deviceInstance();
    const device = await startDevice(t, { client_id: 'cli', scope: 'openid read', resource: RESOURCE });
    const html = await reachConfirmation(t, new FakeBrowser(t.gatehouse), device.user_code);
    expect(html).toContain('<strong>Demo CLI</strong>');
    expect(html).toContain('<code>read</code>');
    expect(html).toContain(`<code>${RESOURCE}</code>`);
    expect(html).toContain(device.user_code);
    expect(html).toMatch(/Check that this is the code shown on your device/);
    expect(html).toMatch(/<button type="submit" name="decision" value="allow">Allow/);
    expect(html).toMatch(/<button type="submit" name="decision" value="deny"[^>]*>Deny/);
    expect(parseForm(html).action).toBe('/demo/device/confirm');
  });

  it('ends on a page without any form, and the user code cannot be used again', async () => {
    const t = await deviceInstance();
    const device = await startDevice(t);
    const { response, browser } = await approve(t, device.user_code);
    const done = await response.text();
    expect(done).not.toContain('<form');
    expect(done).toContain('Device connected');
    const again = await browser.submit(await (await browser.get(device.verification_uri)).text(), {
      user_code: device.user_code,
    });
    expect(again.status).toBe(400);
  });

  it('compares codes case- and dash-insensitively', async () => {
    const t = await deviceInstance();
    const device = await startDevice(t);
    const typed = device.user_code.replace('-', '').toLowerCase();
    const browser = new FakeBrowser(t.gatehouse);
    await browser
      .submitAndFollow(await (await browser.get(`${ISSUER}/device`)).text(), { user_code: ` ${typed} ` })
      .then(async (login) => expect(await login.text()).toContain('name="password"'));
  });

  it('shows the code form again for a wrong or malformed code, and approves nothing', async () => {
    const t = await deviceInstance();
    const device = await startDevice(t);
    const browser = new FakeBrowser(t.gatehouse);
    const wrongCode = device.user_code.startsWith('B') ? 'CCCC-CCCC' : 'BBBB-BBBB';
    for (const code of [wrongCode, 'AEIO-U123', '<script>']) {
      const page = await browser.submit(await (await browser.get(`${ISSUER}/device`)).text(), {
        user_code: code,
      });
      expect(page.status).toBe(400);
      const html = await page.text();
      expect(html).toContain('name="user_code"');
      expect(html).not.toContain('<script>');
    }
    // Signed in, a wrong code on the confirmation form approves nothing either.
    const html = await reachConfirmation(t, browser, device.user_code);
    const wrong = await browser.submit(html, { decision: 'allow', user_code: wrongCode });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain('name="user_code"');
    t.clock.advance(5);
    expect(await pollError(t, device.device_code)).toBe('authorization_pending');
  });

  it('refuses a decision without the CSRF token or from another origin', async () => {
    const t = await deviceInstance();
    const device = await startDevice(t);
    const browser = new FakeBrowser(t.gatehouse);
    const html = await reachConfirmation(t, browser, device.user_code);
    const noToken = await browser.submit(html, { decision: 'allow', csrf_token: '' });
    expect(noToken.status).toBe(403);
    const foreign = await browser.submit(
      html,
      { decision: 'allow' },
      { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' },
    );
    expect(foreign.status).toBe(403);
    t.clock.advance(5);
    expect(await pollError(t, device.device_code)).toBe('authorization_pending');
  });

  it('lets exactly one of a racing Allow and Deny decide', async () => {
    const t = await deviceInstance();
    const device = await startDevice(t);
    const browser = new FakeBrowser(t.gatehouse);
    const html = await reachConfirmation(t, browser, device.user_code);
    const [allow, deny] = await Promise.all([
      browser.submit(html, { decision: 'allow' }),
      browser.submit(html, { decision: 'deny' }),
    ]);
    expect([allow.status, deny.status].sort()).toEqual([200, 400]);
    t.clock.advance(5);
    const result = await poll(t, device.device_code);
    expect(result.status).toBe(allow.status === 200 ? 200 : 400);
  });

  it('asks to sign in again when the session ended before the decision', async () => {
    const t = await deviceInstance();
    const device = await startDevice(t);
    const browser = new FakeBrowser(t.gatehouse);
    const html = await reachConfirmation(t, browser, device.user_code);
    browser.cookies.delete('gatehouse_session');
    const response = await browser.submitAndFollow(html, { decision: 'allow' });
    expect(await response.text()).toContain('name="password"');
    t.clock.advance(5);
    expect(await pollError(t, device.device_code)).toBe('authorization_pending');
  });
});

describe('verification page with the host’s own sign-in (interactions.url)', () => {
  /** An instance whose users the host signs in: no passwords here, and no built-in login page. */
  async function hostInstance(overrides: TestOptions = {}) {
    return deviceInstance({
      users: { findUser: async (id) => (id === 'alice' ? { id, claims: { name: 'Alice' } } : null) },
      authApi: { enabled: false },
      interactions: { url: '/demo/signin' },
      ...overrides,
    });
  }

  /** The browser's request to the host's page, with the cookies it holds. */
  function hostRequest(browser: FakeBrowser, url: string): Request {
    const cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    return new Request(url, { headers: cookie ? { Cookie: cookie } : {} });
  }

  it('signs the user in on the host’s page through an interaction, then confirms on the verification page', async () => {
    const t = await hostInstance();
    const device = await startDevice(t, { client_id: 'cli', scope: 'openid profile' });
    const browser = new FakeBrowser(t.gatehouse);
    const form = await browser.get(`${ISSUER}/device`);
    const entered = await browser.submit(await form.text(), { user_code: device.user_code });
    expect(entered.status).toBe(303);
    const hostPage = entered.headers.get('location')!;
    expect(hostPage).toMatch(new RegExp(`^${ISSUER}/signin\\?interaction=[\\w-]{43}$`));
    // The host reads what is asked: a device's sign-in, for its client and scopes.
    const details = await t.gatehouse.interactions.details(hostRequest(browser, hostPage));
    expect(details).toMatchObject({
      step: 'login',
      flow: 'device',
      client: { id: 'cli', name: 'Demo CLI' },
      scopes: ['openid', 'profile'],
    });
    // The user confirms on the verification page, so a device sign-in takes no consent.
    await expect(
      t.gatehouse.interactions.finish(hostRequest(browser, hostPage), {
        login: { sub: 'alice' },
        consent: {},
      }),
    ).rejects.toMatchObject({ code: 'interaction_invalid_result' });
    const { location } = await t.gatehouse.interactions.finish(hostRequest(browser, hostPage), {
      login: { sub: 'alice', amr: ['pwd', 'otp'] },
    });
    const confirm = await browser.get(location); // the resume, then the confirmation
    expect(confirm.status).toBe(200);
    const html = await confirm.text();
    expect(html).toContain(device.user_code);
    expect(parseForm(html).action).toBe('/demo/device/confirm');
    const done = await browser.submit(html, { decision: 'allow' });
    expect(await done.text()).toContain('Device connected');
    t.clock.advance(5);
    const tokens = await poll(t, device.device_code);
    expect(tokens.status).toBe(200);
    const idToken = decodeJwt(((await tokens.json()) as { id_token: string }).id_token);
    expect(idToken).toMatchObject({ sub: 'alice', amr: ['pwd', 'otp'] });
    // The built-in login page is not served: the host signs users in.
    expect((await browser.getOnce(`${ISSUER}/login?interaction=x`)).status).toBe(404);
  });

  it('goes straight to the confirmation for a user signed in to the host (interactions.currentUser)', async () => {
    const authTime = Date.UTC(2026, 0, 1);
    const t = await hostInstance({
      interactions: {
        url: '/demo/signin',
        currentUser: (request) =>
          request.headers.get('cookie')?.includes('host=alice') ? { sub: 'alice', authTime } : null,
      },
    });
    const device = await startDevice(t);
    const browser = new FakeBrowser(t.gatehouse);
    browser.cookies.set('host', 'alice');
    const form = await browser.get(`${ISSUER}/device`);
    const confirm = await browser.submit(await form.text(), { user_code: device.user_code });
    expect(confirm.status).toBe(200);
    expect(await confirm.clone().text()).toContain(device.user_code);
    expect((await browser.submit(await confirm.text(), { decision: 'allow' })).status).toBe(200);
    t.clock.advance(5);
    expect(
      decodeJwt(((await (await poll(t, device.device_code)).json()) as { id_token: string }).id_token).sub,
    ).toBe('alice');
  });
});

describe('deviceAuthorization options', () => {
  it('set the lifetime, the interval and the limits', async () => {
    const t = await deviceInstance({
      deviceAuthorization: { codeLifetimeSeconds: 120, pollIntervalSeconds: 2, maxLookupsPerAddress: 3 },
    });
    const device = await startDevice(t);
    expect(device.expires_in).toBe(120);
    expect(device.interval).toBe(2);
    t.clock.advance(2);
    expect(await pollError(t, device.device_code)).toBe('authorization_pending');
    const browser = new FakeBrowser(t.gatehouse);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const form = await browser.get(`${ISSUER}/device`);
      statuses.push((await browser.submit(await form.text(), { user_code: device.user_code })).status);
    }
    // To the sign-in; beyond the address's 3, to the sign-in before the lookup.
    expect(statuses).toEqual([303, 303, 303, 303]);
    expect(t.events.filter((event) => event.type === 'quota.reached')).toHaveLength(1);
    t.clock.advance(120);
    expect(await pollError(t, device.device_code)).toBe('expired_token');
  });

  it('are checked at creation, naming the option', async () => {
    await expect(deviceInstance({ deviceAuthorization: { codeLifetimeSeconds: 5 } })).rejects.toThrow(
      new ConfigurationError(
        'deviceAuthorization.codeLifetimeSeconds: expected a whole number from 60 to 1800, got 5.',
        { code: 'ERR_CONFIG_INVALID_OPTION', option: 'deviceAuthorization.codeLifetimeSeconds' },
      ),
    );
    await expect(deviceInstance({ deviceAuthorization: { maxFailedLookups: 0.5 } })).rejects.toBeInstanceOf(
      ConfigurationError,
    );
  });
});

describe('guessing user codes (RFC 8628 §5.1–§5.2)', () => {
  async function enter(browser: FakeBrowser, code: string, address: string): Promise<Response> {
    const form = await browser.get(`${ISSUER}/device`);
    return browser.submit(await form.text(), { user_code: code }, { 'X-Test-Address': address });
  }

  /** Signs in on the login page a 303 leads to, and answers the page the resume ends at. */
  async function signIn(browser: FakeBrowser, toLogin: Response, address: string): Promise<Response> {
    expect(toLogin.status).toBe(303);
    const login = await browser.follow(toLogin);
    const html = await login.text();
    expect(html).toContain('name="password"');
    const signedIn = await browser.submit(
      html,
      { username: 'demo', password: 'demo-password' },
      {
        'X-Test-Address': address,
      },
    );
    expect(signedIn.status).toBe(303);
    return browser.get(signedIn.headers.get('location')!, { 'X-Test-Address': address });
  }

  it(`looks up ${MAX_USER_CODE_LOOKUPS_PER_ADDRESS} codes per address per window; beyond, the person signs in first and the code is looked up on their account`, async () => {
    const t = await deviceInstance();
    const device = await startDevice(t);
    const browser = new FakeBrowser(t.gatehouse);
    const wrong = device.user_code.startsWith('B') ? 'CCCC-CCCC' : 'BBBB-BBBB';
    for (let i = 0; i < MAX_USER_CODE_LOOKUPS_PER_ADDRESS; i++)
      expect((await enter(browser, wrong, '203.0.113.9')).status).toBe(400);
    // Over the address's share: not looked up (a wrong code is not told wrong), sign-in first.
    const wrongAgain = await enter(browser, wrong, '203.0.113.9');
    expect(wrongAgain.status).toBe(303);
    const afterSignIn = await signIn(browser, wrongAgain, '203.0.113.9');
    expect(afterSignIn.status).toBe(400); // now looked up, charged to the user: wrong
    expect(await afterSignIn.text()).toContain('name="user_code"');
    // Signed in, the right code reaches the confirmation, whatever the address's count.
    const right = await enter(browser, device.user_code, '203.0.113.9');
    expect(right.status).toBe(200);
    expect(await right.text()).toContain('name="decision"');
    expect(t.events).toContainEqual({ type: 'quota.reached', quota: 'device-lookup', payer: 'network' });
  });

  it(`asks everyone to sign in first after ${MAX_FAILED_USER_CODE_LOOKUPS} failed anonymous lookups, and then approves as usual`, async () => {
    const t = await deviceInstance();
    const device = await startDevice(t);
    const browser = new FakeBrowser(t.gatehouse);
    const wrong = device.user_code.startsWith('B') ? 'CCCC-CCCC' : 'BBBB-BBBB';
    for (let i = 0; i < MAX_FAILED_USER_CODE_LOOKUPS; i++) {
      const address = `10.${(i >> 8) & 255}.${i & 255}.1`;
      expect((await enter(browser, wrong, address)).status).toBe(400);
    }
    expect(t.events.filter((event) => event.type === 'quota.reached')).toContainEqual({
      type: 'quota.reached',
      quota: 'device-lookup',
      payer: 'anonymous',
    });
    // A person from a fresh network: no refusal, the sign-in first, then the confirmation.
    const person = new FakeBrowser(t.gatehouse);
    const entered = await enter(person, device.user_code, '192.0.2.200');
    const confirmation = await signIn(person, entered, '192.0.2.200');
    expect(confirmation.status).toBe(200);
    const approved = await person.submit(
      await confirmation.text(),
      { decision: 'allow' },
      {
        'X-Test-Address': '192.0.2.200',
      },
    );
    expect(approved.status).toBe(200);
    expect(t.events.map((event) => event.type)).toContain('device.approved');
  }, 60_000);

  it(`refuses a signed-in user beyond ${MAX_USER_CODE_LOOKUPS_PER_ADDRESS} lookups of their own (429), other users unaffected`, async () => {
    const t = await deviceInstance();
    const device = await startDevice(t);
    const browser = new FakeBrowser(t.gatehouse);
    const wrong = device.user_code.startsWith('B') ? 'CCCC-CCCC' : 'BBBB-BBBB';
    // Signed in through the device flow itself (the right code), then guessing on the account.
    await reachConfirmation(t, browser, device.user_code);
    let status = 0;
    for (let i = 0; i < MAX_USER_CODE_LOOKUPS_PER_ADDRESS && status !== 429; i++)
      status = (await enter(browser, wrong, `198.18.${i}.1`)).status;
    expect(status).toBe(429);
    const refused = await enter(browser, device.user_code, '198.18.200.1');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(t.events).toContainEqual({ type: 'quota.reached', quota: 'device-lookup', payer: 'user' });
  });
});
