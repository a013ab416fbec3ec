import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CIBA_GRANT,
  type ClientRecord,
  ConfigurationError,
  type GatehouseEvent,
  hashClientSecret,
  memoryClientStore,
} from '@gatehousejs/core';
import type { CibaNotification } from '@gatehousejs/core/ui';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeBrowser, logIn } from '../../../test/browser-flow';
import {
  basic,
  ISSUER,
  issueTokens,
  post,
  type TestInstance,
  type TestOptions,
  testInstance,
} from '../../../test/fixtures';
import { CIBA_DEFAULTS } from './settings.js';

const AGENT = basic('agent', 'agent-secret');
const PINGER = basic('pinger', 'pinger-secret');

async function cibaClients(notificationEndpoint = 'https://agent.example.com/cb'): Promise<ClientRecord[]> {
  return [
    {
      id: 'agent',
      name: 'Shopping Agent',
      type: 'confidential',
      secretHash: await hashClientSecret('agent-secret'),
      redirectUris: [],
      grantTypes: [CIBA_GRANT, 'refresh_token'],
      backchannelTokenDeliveryMode: 'poll',
      scopes: ['openid', 'profile', 'read'],
    },
    {
      id: 'pinger',
      name: 'Ping Agent',
      type: 'confidential',
      secretHash: await hashClientSecret('pinger-secret'),
      redirectUris: [],
      grantTypes: [CIBA_GRANT],
      backchannelTokenDeliveryMode: 'ping',
      backchannelClientNotificationEndpoint: notificationEndpoint,
      scopes: ['openid', 'profile'],
    },
    {
      id: 'demo-client',
      type: 'confidential',
      secretHash: await hashClientSecret('demo-secret'),
      redirectUris: ['http://localhost:3000/callback'],
      firstParty: true,
    },
    {
      id: 'public-agent',
      type: 'public',
      tokenEndpointAuthMethod: 'none',
      redirectUris: [],
      grantTypes: [CIBA_GRANT],
    },
  ];
}

type CibaInstance = TestInstance & {
  readonly events: GatehouseEvent[];
  readonly notified: CibaNotification[];
};

async function cibaInstance(
  overrides: TestOptions = {},
  notificationEndpoint?: string,
): Promise<CibaInstance> {
  const events: GatehouseEvent[] = [];
  const notified: CibaNotification[] = [];
  const t = await testInstance({
    onEvent: (event) => events.push(event),
    ...overrides,
    ciba: {
      notify: (request) => {
        notified.push(request);
      },
      resolveLoginHint: (hint) => (hint === 'demo' ? 'user-1' : null),
      ...overrides.ciba,
    },
    clients: memoryClientStore(await cibaClients(notificationEndpoint)),
  });
  return Object.assign(t, { events, notified });
}

interface BackchannelAnswer {
  auth_req_id: string;
  expires_in: number;
  interval: number;
}

function askRaw(t: TestInstance, form: Record<string, string>, auth = AGENT): Promise<Response> {
  return t.gatehouse.fetch(
    post('/oauth2/v1/backchannel_authentication', form, auth === '' ? {} : { Authorization: auth }),
  );
}

async function ask(
  t: TestInstance,
  form: Record<string, string> = { scope: 'openid profile', login_hint: 'demo', binding_message: 'W4SCT' },
  auth = AGENT,
): Promise<BackchannelAnswer> {
  const response = await askRaw(t, form, auth);
  if (response.status !== 200) throw new Error(`backchannel: ${response.status} ${await response.text()}`);
  expect(response.headers.get('cache-control')).toContain('no-store');
  return (await response.json()) as BackchannelAnswer;
}

function poll(t: TestInstance, authReqId: string, auth = AGENT): Promise<Response> {
  return t.gatehouse.fetch(
    post('/oauth2/v1/token', { grant_type: CIBA_GRANT, auth_req_id: authReqId }, { Authorization: auth }),
  );
}

async function pollError(t: TestInstance, authReqId: string, auth = AGENT): Promise<string> {
  const response = await poll(t, authReqId, auth);
  expect(response.status).toBe(400);
  return ((await response.json()) as { error: string }).error;
}

async function errorOf(response: Response): Promise<{ status: number; error: string }> {
  return { status: response.status, error: ((await response.json()) as { error: string }).error };
}

/** Signs in on the approval page and answers its HTML. */
async function approvalPage(t: TestInstance, browser = new FakeBrowser(t.gatehouse)) {
  const signedIn = await logIn(browser, `${ISSUER}/approvals`);
  expect(signedIn.status).toBe(303);
  const page = await browser.follow(signedIn);
  expect(page.status).toBe(200);
  return { browser, html: await page.text() };
}

/** The approval page's fields with `request_id` set (the page has one form per request). */
function decision(html: string, requestId: string, choice: 'allow' | 'deny'): string {
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(html)![1]!;
  return new URLSearchParams({ request_id: requestId, csrf_token: csrf, decision: choice }).toString();
}

async function decide(browser: FakeBrowser, html: string, requestId: string, choice: 'allow' | 'deny') {
  return browser.fetch(`${ISSUER}/approvals`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Accept: 'text/html',
      Origin: new URL(ISSUER).origin,
      'Sec-Fetch-Site': 'same-origin',
    },
    body: decision(html, requestId, choice),
  });
}

describe('backchannel authentication endpoint (CIBA Core 1.0 §7)', () => {
  it('is described in both discovery documents, without user codes', async () => {
    const t = await cibaInstance();
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const metadata = (await (await t.gatehouse.fetch(new Request(ISSUER + path))).json()) as Record<
        string,
        unknown
      >;
      expect(metadata).toMatchObject({
        backchannel_authentication_endpoint: `${ISSUER}/oauth2/v1/backchannel_authentication`,
        backchannel_token_delivery_modes_supported: ['poll', 'ping'],
        backchannel_user_code_parameter_supported: false,
      });
      expect(metadata.grant_types_supported).toContain(CIBA_GRANT);
    }
  });

  it('is absent without the ciba option, and gatehouse.ciba rejects', async () => {
    const t = await testInstance();
    const metadata = (await t.gatehouse.metadata()) as Record<string, unknown>;
    expect(metadata.backchannel_authentication_endpoint).toBeUndefined();
    expect((await t.gatehouse.fetch(post('/oauth2/v1/backchannel_authentication', {}))).status).toBe(404);
    await expect(t.gatehouse.ciba.pending('user-1')).rejects.toBeInstanceOf(ConfigurationError);
  });

  it('answers an auth_req_id of at least 128 bits, its lifetime and the interval, and tells the device', async () => {
    const t = await cibaInstance();
    const answer = await ask(t);
    expect(answer.auth_req_id).toMatch(/^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);
    expect(answer.expires_in).toBe(CIBA_DEFAULTS.requestLifetimeSeconds);
    expect(answer.interval).toBe(CIBA_DEFAULTS.pollIntervalSeconds);
    expect(t.notified).toHaveLength(1);
    const [notification] = t.notified;
    expect(notification).toMatchObject({
      user: { id: 'user-1' },
      client: { id: 'agent', name: 'Shopping Agent' },
      bindingMessage: 'W4SCT',
      scopes: ['openid', 'profile'],
      approvalUrl: `${ISSUER}/approvals`,
    });
    // The device hears the request's handle, never the client's credential for the token endpoint.
    expect(answer.auth_req_id.startsWith(notification!.requestId)).toBe(true);
    expect(JSON.stringify(notification)).not.toContain(answer.auth_req_id.slice(23));
    expect(t.events).toContainEqual({
      type: 'ciba.requested',
      clientId: 'agent',
      userId: 'user-1',
      mode: 'poll',
    });
  });

  it('caps requested_expiry at maxRequestLifetimeSeconds', async () => {
    const t = await cibaInstance({ ciba: { maxRequestLifetimeSeconds: 600 } });
    const short = await ask(t, { scope: 'openid', login_hint: 'demo', requested_expiry: '120' });
    expect(short.expires_in).toBe(120);
    const long = await ask(t, { scope: 'openid', login_hint: 'demo', requested_expiry: '86400' });
    expect(long.expires_in).toBe(600);
    expect(
      await errorOf(await askRaw(t, { scope: 'openid', login_hint: 'demo', requested_expiry: '-5' })),
    ).toEqual({
      status: 400,
      error: 'invalid_request',
    });
  });

  it('refuses what CIBA §13 refuses, storing nothing', async () => {
    const t = await cibaInstance();
    const cases: [Record<string, string>, string, string?][] = [
      [{ scope: 'profile', login_hint: 'demo' }, 'invalid_scope'],
      [{ scope: 'openid' }, 'invalid_request'],
      [{ scope: 'openid', login_hint: 'demo', id_token_hint: 'x.y.z' }, 'invalid_request'],
      [{ scope: 'openid', login_hint_token: 'abc' }, 'invalid_request'],
      [{ scope: 'openid', login_hint: 'nobody' }, 'unknown_user_id'],
      [{ scope: 'openid', id_token_hint: 'not-a-token' }, 'invalid_request'],
      [{ scope: 'openid', login_hint: 'demo', binding_message: '   ' }, 'invalid_binding_message'],
      [{ scope: 'openid', login_hint: 'demo', binding_message: 'a\u2028b' }, 'invalid_binding_message'],
      [{ scope: 'openid', login_hint: 'demo', binding_message: 'x'.repeat(101) }, 'invalid_binding_message'],
      [{ scope: 'openid', login_hint: 'demo', request: 'eyJ.eyJ.sig' }, 'request_not_supported'],
      [{ scope: 'openid admin', login_hint: 'demo' }, 'invalid_scope'],
      [{ scope: 'openid', login_hint: 'demo' }, 'unauthorized_client', basic('demo-client', 'demo-secret')],
      [{ scope: 'openid', login_hint: 'demo', client_id: 'public-agent' }, 'unauthorized_client', ''],
      [{ scope: 'openid', login_hint: 'demo' }, 'invalid_client', basic('agent', 'wrong')],
    ];
    for (const [form, error, auth] of cases) {
      const answer = await errorOf(await askRaw(t, form, auth ?? AGENT));
      expect({ form, ...answer }).toEqual({ form, status: error === 'invalid_client' ? 401 : 400, error });
    }
    expect(t.notified).toEqual([]);
    expect(await t.gatehouse.ciba.pending('user-1')).toEqual([]);
  });

  it('takes an id_token_hint of an ID token issued to the client', async () => {
    const t = await cibaInstance();
    const first = await ask(t);
    const { browser, html } = await approvalPage(t);
    await decide(browser, html, first.auth_req_id.slice(0, 22), 'allow');
    t.clock.advance(6);
    const tokens = (await (await poll(t, first.auth_req_id)).json()) as { id_token: string };
    const hinted = await ask(t, { scope: 'openid', id_token_hint: tokens.id_token });
    expect((await t.gatehouse.ciba.pending('user-1')).map((r) => r.requestId)).toEqual([
      hinted.auth_req_id.slice(0, 22),
    ]);
    // An ID token of another client names no one for this one.
    const other = (await issueTokens(t, 'openid', 'user-1')) as unknown as { id_token: string };
    expect(other.id_token).toBeTruthy();
    expect(await errorOf(await askRaw(t, { scope: 'openid', id_token_hint: other.id_token }))).toEqual({
      status: 400,
      error: 'invalid_request',
    });
  });
});

describe('the CIBA grant, poll mode (CIBA §10.1, §11)', () => {
  it('goes from pending (slow_down when too fast) to tokens with an ID token once the user allows on the page', async () => {
    const t = await cibaInstance();
    const { auth_req_id } = await ask(t);
    expect(await pollError(t, auth_req_id)).toBe('slow_down');
    t.clock.advance(10);
    expect(await pollError(t, auth_req_id)).toBe('authorization_pending');

    const { browser, html } = await approvalPage(t);
    expect(html).toContain('Shopping Agent');
    expect(html).toContain('<strong class="binding-message">W4SCT</strong>');
    expect(html).toMatch(/<button[^>]*value="allow"[^>]*>Allow<\/button>/);
    expect(html).toMatch(/<button[^>]*value="deny"[^>]*>Deny<\/button>/);
    const after = await decide(browser, html, auth_req_id.slice(0, 22), 'allow');
    expect(after.status).toBe(200);
    const afterHtml = await after.text();
    expect(afterHtml).toContain('The request was allowed.');
    expect(afterHtml).not.toContain('W4SCT');
    expect(t.events).toContainEqual({ type: 'ciba.approved', clientId: 'agent', userId: 'user-1' });

    t.clock.advance(10);
    const response = await poll(t, auth_req_id);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toContain('no-store');
    const tokens = (await response.json()) as Record<string, string>;
    expect(tokens).toMatchObject({ token_type: 'Bearer', scope: 'openid profile' });
    expect(tokens.refresh_token).toBeTruthy();
    expect(decodeJwt(tokens.id_token!)).toMatchObject({ iss: ISSUER, sub: 'user-1', aud: 'agent' });
    expect(decodeJwt(tokens.access_token!)).toMatchObject({ sub: 'user-1', client_id: 'agent' });
    // Single use.
    expect(await pollError(t, auth_req_id)).toBe('invalid_grant');
  });

  it('answers access_denied once after "Deny", then invalid_grant', async () => {
    const t = await cibaInstance();
    const { auth_req_id } = await ask(t);
    const { browser, html } = await approvalPage(t);
    const after = await decide(browser, html, auth_req_id.slice(0, 22), 'deny');
    expect(await after.text()).toContain('The request was denied.');
    t.clock.advance(6);
    expect(await pollError(t, auth_req_id)).toBe('access_denied');
    expect(await pollError(t, auth_req_id)).toBe('invalid_grant');
  });

  it('answers expired_token after expires_in, and the request leaves the page', async () => {
    const t = await cibaInstance();
    const { auth_req_id, expires_in } = await ask(t, {
      scope: 'openid',
      login_hint: 'demo',
      requested_expiry: '60',
    });
    t.clock.advance(expires_in);
    expect(await pollError(t, auth_req_id)).toBe('expired_token');
    expect(await t.gatehouse.ciba.pending('user-1')).toEqual([]);
    expect(await t.gatehouse.ciba.approve('user-1', auth_req_id.slice(0, 22))).toBe(false);
  });

  it('answers invalid_grant for another client, a wrong secret or a malformed id, and leaves the request usable', async () => {
    const t = await cibaInstance();
    const { auth_req_id } = await ask(t);
    expect(await pollError(t, auth_req_id, PINGER)).toBe('invalid_grant');
    expect(await pollError(t, `${auth_req_id.slice(0, 23)}${'A'.repeat(43)}`)).toBe('invalid_grant');
    expect(await pollError(t, 'nonsense')).toBe('invalid_grant');
    await t.gatehouse.ciba.approve('user-1', auth_req_id.slice(0, 22));
    t.clock.advance(6);
    expect((await poll(t, auth_req_id)).status).toBe(200);
  });

  it('lets one of two racing decisions count', async () => {
    const t = await cibaInstance();
    const { auth_req_id } = await ask(t);
    const id = auth_req_id.slice(0, 22);
    const outcomes = await Promise.all([
      t.gatehouse.ciba.approve('user-1', id),
      t.gatehouse.ciba.deny('user-1', id),
      t.gatehouse.ciba.approve('user-1', id),
    ]);
    expect(outcomes.filter(Boolean)).toHaveLength(1);
  });
});

describe('rich authorization requests (RFC 9396) in backchannel authentication', () => {
  const details = {
    types: {
      ticket_access: {
        validate: (detail: { actions?: readonly string[] }) =>
          detail.actions?.length && detail.actions.every((a) => a === 'read' || a === 'write')
            ? undefined
            : '"actions" must be read and/or write',
        describe: (detail: { actions?: readonly string[] }, locale: string) =>
          locale === 'fr'
            ? `Tickets : ${(detail.actions ?? []).join(' et ')}`
            : `Tickets: ${(detail.actions ?? []).join(' and ')}`,
      },
    },
  };
  const READ_WRITE = JSON.stringify([{ type: 'ticket_access', actions: ['read', 'write'] }]);
  const WRITE = JSON.stringify([{ type: 'ticket_access', actions: ['write'] }]);

  it('accepts authorization_details, shows them on the approval page and puts the approved ones in the tokens', async () => {
    const t = await cibaInstance({ authorizationDetails: details });
    const { auth_req_id } = await ask(t, {
      scope: 'openid',
      login_hint: 'demo',
      binding_message: 'RAR-1',
      authorization_details: READ_WRITE,
    });
    expect(t.notified[0]!.authorizationDetails).toEqual(JSON.parse(READ_WRITE));
    const [pending] = await t.gatehouse.ciba.pending('user-1');
    expect(pending!.authorizationDetails).toEqual(JSON.parse(READ_WRITE));
    const { browser, html } = await approvalPage(t);
    expect(html).toContain('<ul class="authorization-details"><li>Tickets: read and write</li></ul>');
    const french = await browser.fetch(`${ISSUER}/approvals`, { headers: { 'Accept-Language': 'fr' } });
    expect(await french.text()).toContain('<li>Tickets : read et write</li>');
    await decide(browser, html, auth_req_id.slice(0, 22), 'allow');

    // §6.1: the token request may not widen them…
    const wider = await t.gatehouse.fetch(
      post(
        '/oauth2/v1/token',
        {
          grant_type: CIBA_GRANT,
          auth_req_id,
          authorization_details: JSON.stringify([
            { type: 'ticket_access', actions: ['read', 'write', 'admin'] },
          ]),
        },
        { Authorization: AGENT },
      ),
    );
    expect(await errorOf(wider)).toEqual({ status: 400, error: 'invalid_authorization_details' });
    // …and may narrow them; the refused request spent nothing.
    const response = await t.gatehouse.fetch(
      post(
        '/oauth2/v1/token',
        { grant_type: CIBA_GRANT, auth_req_id, authorization_details: WRITE },
        { Authorization: AGENT },
      ),
    );
    expect(response.status).toBe(200);
    const tokens = (await response.json()) as Record<string, unknown>;
    expect(tokens.authorization_details).toEqual(JSON.parse(WRITE));
    expect(decodeJwt(tokens.access_token as string).authorization_details).toEqual(JSON.parse(WRITE));
    // The refresh token keeps every approved detail.
    const refreshed = await t.gatehouse.fetch(
      post(
        '/oauth2/v1/token',
        { grant_type: 'refresh_token', refresh_token: tokens.refresh_token as string },
        { Authorization: AGENT },
      ),
    );
    expect(((await refreshed.json()) as Record<string, unknown>).authorization_details).toEqual(
      JSON.parse(READ_WRITE),
    );
  });

  it('refuses invalid authorization_details with invalid_authorization_details, storing nothing', async () => {
    const t = await cibaInstance({ authorizationDetails: details });
    for (const text of [
      '[]',
      'not json',
      JSON.stringify([{ type: 'other' }]),
      JSON.stringify([{ type: 'ticket_access', actions: ['delete'] }]),
    ]) {
      const answer = await errorOf(
        await askRaw(t, { scope: 'openid', login_hint: 'demo', authorization_details: text }),
      );
      expect({ text, ...answer }).toEqual({ text, status: 400, error: 'invalid_authorization_details' });
    }
    expect(t.notified).toEqual([]);
  });
});

describe('gatehouse.ciba (host API)', () => {
  it('lists the user pending requests and decides only their own', async () => {
    const t = await cibaInstance();
    const { auth_req_id } = await ask(t);
    const [pending] = await t.gatehouse.ciba.pending('user-1');
    expect(pending).toMatchObject({
      client: { id: 'agent', name: 'Shopping Agent' },
      bindingMessage: 'W4SCT',
      scopes: ['openid', 'profile'],
      resources: [],
    });
    expect(await t.gatehouse.ciba.pending('user-2')).toEqual([]);
    expect(await t.gatehouse.ciba.approve('user-2', pending!.requestId)).toBe(false);
    expect(
      await t.gatehouse.ciba.approve('user-1', pending!.requestId, {
        acr: 'urn:mace:incommon:iap:silver',
        amr: ['hwk'],
      }),
    ).toBe(true);
    expect(await t.gatehouse.ciba.deny('user-1', pending!.requestId)).toBe(false);
    t.clock.advance(6);
    const tokens = (await (await poll(t, auth_req_id)).json()) as { id_token: string };
    expect(decodeJwt(tokens.id_token)).toMatchObject({ acr: 'urn:mace:incommon:iap:silver', amr: ['hwk'] });
  });
});

describe('bounds (security.md, "Backchannel authentication")', () => {
  it('caps pending requests per user, all clients together; a decision frees a slot', async () => {
    const t = await cibaInstance({ ciba: { maxPendingPerUser: 2 } });
    const first = await ask(t);
    await ask(t);
    const refused = await askRaw(t, { scope: 'openid', login_hint: 'demo' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(t.notified).toHaveLength(2);
    expect(await t.gatehouse.ciba.deny('user-1', first.auth_req_id.slice(0, 22))).toBe(true);
    await ask(t);
  });

  it('caps requests per client, and another client keeps its own share', async () => {
    const t = await cibaInstance({ ciba: { maxRequestsPerClient: 2, maxPendingPerUser: 10 } });
    await ask(t);
    await ask(t);
    expect((await askRaw(t, { scope: 'openid', login_hint: 'demo' })).status).toBe(429);
    const other = await askRaw(
      t,
      { scope: 'openid', login_hint: 'demo', client_notification_token: 'token-123' },
      PINGER,
    );
    expect(other.status).toBe(200);
    expect(t.events).toContainEqual({ type: 'quota.reached', quota: 'ciba-request', payer: 'client' });
  });

  it('caps notifications of one user per window', async () => {
    const t = await cibaInstance({ ciba: { maxNotificationsPerUser: 2, maxPendingPerUser: 10 } });
    const first = await ask(t);
    await t.gatehouse.ciba.deny('user-1', first.auth_req_id.slice(0, 22));
    await ask(t);
    expect((await askRaw(t, { scope: 'openid', login_hint: 'demo' })).status).toBe(429);
    expect(t.notified).toHaveLength(2);
  });

  it('keeps a failing notify hook from failing the request', async () => {
    const t = await cibaInstance({
      ciba: {
        notify: () => {
          throw new Error('push service down');
        },
        resolveLoginHint: () => 'user-1',
      },
    });
    await ask(t);
    expect(t.events).toContainEqual({ type: 'ciba.notify_failed', clientId: 'agent', userId: 'user-1' });
    expect(await t.gatehouse.ciba.pending('user-1')).toHaveLength(1);
  });
});

describe('ping mode (CIBA §10.2) with a real listener', () => {
  const received: { headers: IncomingMessage['headers']; body: string }[] = [];
  let waiting: (() => void) | undefined;
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      response.writeHead(204).end();
      waiting?.();
    });
  });
  let endpoint = '';

  beforeAll(async () => {
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ciba/notify`;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  it('POSTs the auth_req_id with the client_notification_token as bearer, then the client gets its tokens', async () => {
    const t = await cibaInstance({ ciba: { ping: { allowLoopback: true } } }, endpoint);
    const { auth_req_id } = await ask(
      t,
      { scope: 'openid profile', login_hint: 'demo', client_notification_token: 'notify-me-8d1f' },
      PINGER,
    );
    const arrived = new Promise<void>((done) => {
      waiting = done;
    });
    const [pending] = await t.gatehouse.ciba.pending('user-1');
    expect(await t.gatehouse.ciba.approve('user-1', pending!.requestId)).toBe(true);
    await arrived;
    expect(received).toHaveLength(1);
    expect(received[0]!.headers.authorization).toBe('Bearer notify-me-8d1f');
    expect(received[0]!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(received[0]!.body)).toEqual({ auth_req_id });
    const response = await poll(t, auth_req_id, PINGER);
    expect(response.status).toBe(200);
    expect((await response.json()) as object).toHaveProperty('id_token');
  });

  it('retries an endpoint that fails (5xx) with backoff, and gives up on one that never answers in time', async () => {
    let failures = 1;
    const answered: number[] = [];
    const flaky = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        const status = failures-- > 0 ? 503 : 204;
        answered.push(status);
        response.writeHead(status).end();
      });
    });
    const silent = createServer(() => {}); // accepts, never answers
    await Promise.all([
      new Promise<void>((done) => flaky.listen(0, '127.0.0.1', done)),
      new Promise<void>((done) => silent.listen(0, '127.0.0.1', done)),
    ]);
    const url = (server: typeof flaky) => `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`;
    const eventually = (t: CibaInstance, type: GatehouseEvent['type']) =>
      new Promise<GatehouseEvent>((done) => {
        const check = setInterval(() => {
          const event = t.events.find((e) => e.type === type);
          if (event) {
            clearInterval(check);
            done(event);
          }
        }, 5);
      });
    try {
      const t = await cibaInstance({ ciba: { ping: { allowLoopback: true } } }, url(flaky));
      await ask(t, { scope: 'openid', login_hint: 'demo', client_notification_token: 'tok' }, PINGER);
      await t.gatehouse.ciba.approve('user-1', (await t.gatehouse.ciba.pending('user-1'))[0]!.requestId);
      expect(await eventually(t, 'ciba.ping_sent')).toEqual({
        type: 'ciba.ping_sent',
        clientId: 'pinger',
        attempts: 2,
      });
      expect(answered).toEqual([503, 204]);

      const slow = await cibaInstance(
        { ciba: { ping: { allowLoopback: true, timeoutMs: 100, attempts: 1 } } },
        url(silent),
      );
      await ask(slow, { scope: 'openid', login_hint: 'demo', client_notification_token: 'tok' }, PINGER);
      await slow.gatehouse.ciba.deny('user-1', (await slow.gatehouse.ciba.pending('user-1'))[0]!.requestId);
      expect(await eventually(slow, 'ciba.ping_failed')).toEqual({
        type: 'ciba.ping_failed',
        clientId: 'pinger',
        attempts: 1,
      });
    } finally {
      flaky.close();
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('needs a client_notification_token, and refuses a loopback endpoint without allowLoopback', async () => {
    const t = await cibaInstance({}, endpoint);
    expect(await errorOf(await askRaw(t, { scope: 'openid', login_hint: 'demo' }, PINGER))).toEqual({
      status: 400,
      error: 'invalid_request',
    });
    await ask(t, { scope: 'openid', login_hint: 'demo', client_notification_token: 'tok' }, PINGER);
    const [pending] = await t.gatehouse.ciba.pending('user-1');
    const failed = new Promise<void>((done) => {
      const check = setInterval(() => {
        if (t.events.some((e) => e.type === 'ciba.ping_failed')) {
          clearInterval(check);
          done();
        }
      }, 5);
    });
    const before = received.length;
    await t.gatehouse.ciba.approve('user-1', pending!.requestId);
    await failed;
    expect(received.length).toBe(before);
    expect(t.events).toContainEqual({ type: 'ciba.ping_failed', clientId: 'pinger', attempts: 1 });
  });
});

describe('client registration of CIBA (RFC 7591, CIBA §4)', () => {
  const register = (t: TestInstance, body: Record<string, unknown>) =>
    t.gatehouse.fetch(
      new Request(`${ISSUER}/oauth2/v1/register`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      }),
    );

  it('registers a ping client without redirect URIs, which can then ask', async () => {
    const t = await cibaInstance({ dynamicRegistration: { allowConfidential: true } });
    const response = await register(t, {
      grant_types: [CIBA_GRANT],
      token_endpoint_auth_method: 'client_secret_basic',
      backchannel_token_delivery_mode: 'ping',
      backchannel_client_notification_endpoint: 'https://agent.example.com/cb',
      scope: 'openid profile',
    });
    expect(response.status).toBe(201);
    const client = (await response.json()) as Record<string, string>;
    expect(client).toMatchObject({
      grant_types: [CIBA_GRANT],
      redirect_uris: [],
      backchannel_token_delivery_mode: 'ping',
      backchannel_client_notification_endpoint: 'https://agent.example.com/cb',
    });
    await ask(
      t,
      { scope: 'openid', login_hint: 'demo', client_notification_token: 'tok' },
      basic(client.client_id!, client.client_secret!),
    );
  });

  it('refuses a CIBA registration that cannot work', async () => {
    const t = await cibaInstance({ dynamicRegistration: { allowConfidential: true } });
    const base = { grant_types: [CIBA_GRANT], token_endpoint_auth_method: 'client_secret_basic' };
    for (const body of [
      base,
      { ...base, backchannel_token_delivery_mode: 'push' },
      { ...base, backchannel_token_delivery_mode: 'ping' },
      {
        ...base,
        backchannel_token_delivery_mode: 'ping',
        backchannel_client_notification_endpoint: 'http://agent.example.com/cb',
      },
      { ...base, backchannel_token_delivery_mode: 'poll', token_endpoint_auth_method: 'none' },
      { ...base, backchannel_token_delivery_mode: 'poll', backchannel_user_code_parameter: true },
    ]) {
      const response = await register(t, body);
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
      expect(((await response.json()) as { error: string }).error).toBe('invalid_client_metadata');
    }
  });

  it('refuses the CIBA grant type when the instance does not serve CIBA', async () => {
    const t = await testInstance({ dynamicRegistration: { allowConfidential: true } });
    const response = await register(t, {
      grant_types: [CIBA_GRANT],
      token_endpoint_auth_method: 'client_secret_basic',
      backchannel_token_delivery_mode: 'poll',
    });
    expect(response.status).toBe(400);
  });
});

describe('ciba options', () => {
  it('are validated, naming the option', async () => {
    await expect(cibaInstance({ ciba: { deliveryModes: ['push' as 'poll'] } })).rejects.toThrow(
      /ciba\.deliveryModes/,
    );
    await expect(cibaInstance({ ciba: { pollIntervalSeconds: 0 } })).rejects.toThrow(
      /ciba\.pollIntervalSeconds/,
    );
    await expect(cibaInstance({ ciba: { maxPendingPerUser: 1000 } })).rejects.toThrow(
      /ciba\.maxPendingPerUser/,
    );
  });
});
