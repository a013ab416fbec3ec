/**
 * OpenID Connect Back-Channel Logout 1.0, end to end: a relying party signs a user in with
 * oauth4webapi (the code flow, its ID token validated and its `sid` kept), and its back-channel
 * logout endpoint is a real node:http listener that validates each logout token as §2.6 says,
 * with jose against the instance's JWKS. Every way a session ends is tried, and the delivery's
 * bounds: retries with backoff, the deadline, the SSRF checks, the concurrency and queue caps.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type AuditRecord,
  type ClientRecord,
  type GatehouseEvent,
  generateKeys,
  hashClientSecret,
  memoryClientStore,
  type PrivateJwk,
} from '@gatehousejs/core';
import { type KeyValueStore, memoryKeyValueStore } from '@gatehousejs/core/engine';
import { addressCheckingFetch } from '@gatehousejs/core/node';
import {
  createLocalJWKSet,
  decodeProtectedHeader,
  type JSONWebKeySet,
  type JWTPayload,
  jwtVerify,
} from 'jose';
import * as oauth from 'oauth4webapi';
import { afterEach, describe, expect, it } from 'vitest';
import { authorizeUrl, FakeBrowser, ORIGIN } from '../../../test/browser-flow';
import {
  ISSUER,
  PKCE_VERIFIER,
  REDIRECT_URI,
  type TestOptions,
  testClients,
  testClock,
  testInstance,
  testKey,
} from '../../../test/fixtures';

const EVENT = 'http://schemas.openid.net/event/backchannel-logout';
const NONCE = 'n-0S6_WzA2Mj';

/** What the relying party's endpoint made of one logout request. */
interface Received {
  readonly clientId: string;
  readonly contentType: string;
  /** `ok`, or why the token failed §2.6 validation (then the answer was 400). */
  readonly verdict: string;
  readonly claims?: JWTPayload;
  readonly header?: Record<string, unknown>;
}

/** How the endpoint answers a valid logout request: a status, or hold it until released. */
type Answer = number | 'hold';

/**
 * Relying parties' back-channel logout endpoints (`/{client_id}/logout`) on one node:http
 * listener. Each logout token is validated as Back-Channel Logout 1.0 §2.6 says, against what the
 * relying party kept of its ID tokens (`iss`, `sub`, `sid`, §2.6 steps 8 to 10): a valid one is
 * answered as scripted (200 by default, with `Cache-Control: no-store`, §2.8), an invalid one 400.
 */
class RelyingParties {
  readonly received: Received[] = [];
  readonly held: ServerResponse[] = [];
  /** The most requests held at once. */
  maxHeld = 0;
  origin = '';
  readonly #answers: Answer[] = [];
  readonly #aliases = new Map<string, string>();
  readonly #sessions = new Map<string, { readonly iss: string; readonly sub: string }>();
  readonly #seen = new Set<string>();
  readonly #waiters: (() => void)[] = [];
  #server: Server | undefined;

  constructor(
    readonly jwks: () => Promise<JSONWebKeySet>,
    readonly now: () => number,
  ) {}

  async start(): Promise<void> {
    this.#server = createServer((request, response) => void this.#handle(request, response));
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise((resolve) => this.#server?.close(resolve));
  }

  /** The back-channel logout URI of `clientId`. */
  uri(clientId: string): string {
    return `${this.origin}/${clientId}/logout`;
  }

  /** Names the client of a path registered before its client id was known. */
  alias(path: string, clientId: string): void {
    this.#aliases.set(path, clientId);
  }

  /** The next answers to valid logout requests, in order (then 200). */
  answer(...answers: Answer[]): void {
    this.#answers.push(...answers);
  }

  /** Keeps what the relying party learns from a validated ID token (its session). */
  signedIn(claims: oauth.IDToken): void {
    this.#sessions.set(claims.sid as string, { iss: claims.iss, sub: claims.sub });
  }

  /** Answers the oldest held request 200. */
  release(): void {
    this.held.shift()?.writeHead(200, { 'Cache-Control': 'no-store' }).end();
  }

  /** Resolves once `count` logout requests have arrived. */
  until(count: number): Promise<Received[]> {
    return this.#when(() => this.received.length >= count).then(() => this.received);
  }

  /** Resolves once `count` requests are held. */
  untilHeld(count: number): Promise<void> {
    return this.#when(() => this.held.length >= count);
  }

  #when(test: () => boolean): Promise<void> {
    if (test()) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => {
        if (!test()) return;
        this.#waiters.splice(this.#waiters.indexOf(check), 1);
        resolve();
      };
      this.#waiters.push(check);
    });
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const path = decodeURIComponent((request.url ?? '/').split('/')[1] ?? '');
    const clientId = this.#aliases.get(path) ?? path;
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    const result = await this.#validate(clientId, form.get('logout_token') ?? '');
    this.received.push({ clientId, contentType: request.headers['content-type'] ?? '', ...result });
    if (result.verdict !== 'ok') {
      response.writeHead(400, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
      response.end(JSON.stringify({ error: 'invalid_request', error_description: result.verdict }));
    } else {
      const answer = this.#answers.shift() ?? 200;
      if (answer === 'hold') {
        this.held.push(response);
        this.maxHeld = Math.max(this.maxHeld, this.held.length);
      } else response.writeHead(answer, { 'Cache-Control': 'no-store' }).end();
    }
    for (const waiter of [...this.#waiters]) waiter();
  }

  /** Back-Channel Logout 1.0 §2.6, step by step. */
  async #validate(clientId: string, token: string): Promise<Pick<Received, 'verdict' | 'claims' | 'header'>> {
    // 1. Not encrypted: no ID token encryption was negotiated, so a JWE would be refused.
    if (token.split('.').length !== 3) return { verdict: 'not a compact JWS' };
    try {
      // 2, 3. The signature and `alg` as for ID tokens (discovery's algorithms, never `none`);
      // §4.1: explicitly typed. 4. `iss`, `aud`, `iat` as for ID tokens, and `exp`.
      const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(await this.jwks()), {
        issuer: ISSUER,
        audience: clientId,
        algorithms: ['RS256', 'ES256', 'EdDSA'],
        typ: 'logout+jwt',
        requiredClaims: ['iat', 'exp', 'jti'],
        currentDate: new Date(this.now()),
      });
      const result = { claims: payload, header: protectedHeader as Record<string, unknown> };
      // 5. A `sub`, a `sid`, or both.
      if (payload.sub === undefined && payload.sid === undefined)
        return { ...result, verdict: 'no sub, no sid' };
      // 6. `events` names the back-channel logout event, whose value is an object.
      const events = payload.events as Record<string, unknown> | undefined;
      const member = events?.[EVENT];
      if (typeof member !== 'object' || member === null || Array.isArray(member))
        return { ...result, verdict: 'no back-channel logout event' };
      // 7. No `nonce`.
      if ('nonce' in payload) return { ...result, verdict: 'a nonce' };
      // 8. No `jti` seen before.
      if (this.#seen.has(payload.jti!)) return { ...result, verdict: 'a replayed jti' };
      this.#seen.add(payload.jti!);
      // 9, 10, 11. `iss`, `sub` and `sid` match an ID token of a session of this relying party.
      const session = this.#sessions.get(payload.sid as string);
      if (!session) return { ...result, verdict: 'an unknown sid' };
      if (session.iss !== payload.iss || session.sub !== payload.sub)
        return { ...result, verdict: 'iss or sub of another session' };
      if ((payload.exp ?? 0) - (payload.iat ?? 0) > 120) return { ...result, verdict: 'a long-lived token' };
      return { ...result, verdict: 'ok' };
    } catch (error) {
      return { verdict: (error as Error).message };
    }
  }
}

/** The events of an instance, and a way to wait for them. */
class Events {
  readonly all: GatehouseEvent[] = [];
  readonly #waiters: (() => void)[] = [];
  readonly onEvent = (event: GatehouseEvent) => {
    this.all.push(event);
    for (const waiter of [...this.#waiters]) waiter();
  };

  of<T extends GatehouseEvent['type']>(type: T): Extract<GatehouseEvent, { type: T }>[] {
    return this.all.filter((event) => event.type === type) as Extract<GatehouseEvent, { type: T }>[];
  }

  /** Resolves once `count` events of `type` were emitted. */
  until<T extends GatehouseEvent['type']>(
    type: T,
    count = 1,
  ): Promise<Extract<GatehouseEvent, { type: T }>[]> {
    const done = () => this.of(type).length >= count;
    if (done()) return Promise.resolve(this.of(type));
    return new Promise((resolve) => {
      const check = () => {
        if (!done()) return;
        this.#waiters.splice(this.#waiters.indexOf(check), 1);
        resolve(this.of(type));
      };
      this.#waiters.push(check);
    });
  }

  /** Back-channel logout outcomes, in order. */
  outcomes(): string[] {
    return this.all
      .filter((event) => event.type.startsWith('backchannel_logout.'))
      .map((event) => {
        const e = event as Extract<GatehouseEvent, { type: 'backchannel_logout.failed' }>;
        return [e.type.slice('backchannel_logout.'.length), e.clientId, e.attempt, e.reason, e.status]
          .filter((part) => part !== undefined)
          .join(' ');
      });
  }
}

let rsaKey: Promise<PrivateJwk> | undefined;
const parties: RelyingParties[] = [];
afterEach(async () => {
  for (const party of parties.splice(0)) await party.stop();
});

/**
 * An instance with back-channel logout on (retries after 10 ms) and host clients `rp-app` and
 * `rp-two` (confidential, first-party, each with its back-channel logout URI on the listener), and
 * the fixtures' clients (without one); a relying party signs in with oauth4webapi.
 */
async function setup(
  options: TestOptions = {},
  extraClients: (rp: RelyingParties) => ClientRecord[] = () => [],
) {
  const clock = testClock(Date.now());
  const events = new Events();
  let jwks: JSONWebKeySet | undefined;
  const rp = new RelyingParties(async () => jwks!, clock.now);
  await rp.start();
  parties.push(rp);
  const rpClient = async (id: string): Promise<ClientRecord> => ({
    id,
    name: id,
    type: 'confidential',
    secretHash: await hashClientSecret(`${id}-secret`),
    redirectUris: [REDIRECT_URI],
    firstParty: true,
    backchannelLogoutUri: rp.uri(id),
  });
  const { backchannelLogout, ...rest } = options;
  rsaKey ??= generateKeys('RS256');
  const t = await testInstance({
    // RS256 signs ID tokens (the default of Core §3.1.3.7, which oauth4webapi expects).
    keys: [await testKey(), await rsaKey],
    now: clock.now,
    onEvent: events.onEvent,
    clients: memoryClientStore([
      ...(await testClients()),
      await rpClient('rp-app'),
      await rpClient('rp-two'),
      ...extraClients(rp),
    ]),
    backchannelLogout: { retryDelayMs: 10, ...backchannelLogout },
    ...rest,
  });
  const customFetch = (url: string, init?: RequestInit) => t.gatehouse.fetch(new Request(url, init));
  const http = { [oauth.customFetch]: customFetch, [oauth.allowInsecureRequests]: true } as const;
  const issuer = new URL(ISSUER);
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...http }),
  );
  jwks = (await (await customFetch(as.jwks_uri!)).json()) as JSONWebKeySet;

  /**
   * `browser` signs in to `clientId` (the login page when it has no session yet) and the client
   * redeems the code with oauth4webapi, validating the ID token; the relying party keeps its
   * session. Returns the ID token and its claims.
   */
  async function signIn(browser: FakeBrowser, clientId = 'rp-app', secret = `${clientId}-secret`) {
    const url = authorizeUrl({ client_id: clientId, scope: 'openid', nonce: NONCE, state: 'st' });
    let response = await browser.get(url);
    for (let step = 0; step < 4 && response.status === 200; step++) {
      const html = await response.text();
      response = html.includes('name="password"')
        ? await browser.submitAndFollow(html, { username: 'demo', password: 'demo-password' })
        : await browser.submitAndFollow(html, { decision: 'allow' });
    }
    const client: oauth.Client = { client_id: clientId };
    const callback = oauth.validateAuthResponse(as, client, new URL(response.headers.get('location')!), 'st');
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(
        as,
        client,
        oauth.ClientSecretBasic(secret),
        callback,
        REDIRECT_URI,
        PKCE_VERIFIER,
        http,
      ),
      { expectedNonce: NONCE, requireIdToken: true },
    );
    const claims = oauth.getValidatedIdTokenClaims(tokens)!;
    rp.signedIn(claims);
    return { idToken: tokens.id_token!, claims, sid: claims.sid as string };
  }

  return { t, clock, rp, events, as, signIn, browser: () => new FakeBrowser(t.gatehouse) };
}

type Setup = Awaited<ReturnType<typeof setup>>;

/** The same-origin script's sign-out (`POST {base}/logout`), answered 204. */
function logoutPage(browser: FakeBrowser): Promise<Response> {
  return browser.fetch(`${ISSUER}/logout`, {
    method: 'POST',
    headers: { Origin: ORIGIN, 'Sec-Fetch-Site': 'same-origin' },
  });
}

/** The ways a session ends, each ending `browser`'s session (signed in to rp-app, `idToken`). */
const TRIGGERS: readonly [
  string,
  (s: Setup, browser: FakeBrowser, idToken: string, sid: string) => Promise<void>,
][] = [
  [
    'the logout page',
    async (_s, browser) => {
      expect((await logoutPage(browser)).status).toBe(204);
    },
  ],
  [
    'RP-initiated logout (end-session with id_token_hint)',
    async (_s, browser, idToken) => {
      const response = await browser.get(
        `${ISSUER}/oauth2/v1/end-session?${new URLSearchParams({ id_token_hint: idToken })}`,
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('set-cookie')).toContain('Max-Age=0');
    },
  ],
  [
    'gatehouse.endSession',
    async (s, browser) => {
      const cookie = `gatehouse_session=${browser.session()}`;
      const expired = await s.t.gatehouse.endSession(new Request(`${ISSUER}/`, { headers: { cookie } }));
      expect(expired).toContain('Max-Age=0');
    },
  ],
  [
    'gatehouse.revokeSession',
    async (s, _browser, _idToken, sid) => {
      expect(await s.t.gatehouse.revokeSession('user-1', sid)).toBe(true);
    },
  ],
  [
    'gatehouse.revokeUser',
    async (s) => {
      await s.t.gatehouse.revokeUser('user-1');
    },
  ],
];

describe('OpenID Connect Back-Channel Logout 1.0', () => {
  it('is announced in discovery when on (§2.1), and says false when off', async () => {
    const s = await setup();
    expect(s.as.backchannel_logout_supported).toBe(true);
    expect(s.as.backchannel_logout_session_supported).toBe(true);
    const oauthDocument = (await (
      await s.t.gatehouse.fetch(
        new Request('http://localhost:3000/.well-known/oauth-authorization-server/demo'),
      )
    ).json()) as Record<string, unknown>;
    expect(oauthDocument.backchannel_logout_supported).toBe(true);
    const off = await testInstance();
    const document = (await (
      await off.gatehouse.fetch(new Request(`${ISSUER}/.well-known/openid-configuration`))
    ).json()) as Record<string, unknown>;
    expect(document.backchannel_logout_supported).toBe(false);
    expect(document).not.toHaveProperty('backchannel_logout_session_supported');
  });

  it('puts the session id in ID tokens: one per session, the same for every client of it, never the cookie', async () => {
    const s = await setup();
    const browser = s.browser();
    const first = await s.signIn(browser, 'rp-app');
    const second = await s.signIn(browser, 'rp-two');
    expect(first.sid).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(second.sid).toBe(first.sid);
    expect(await s.t.gatehouse.listSessions('user-1')).toEqual([
      expect.objectContaining({ sessionId: first.sid }),
    ]);
    const cookie = browser.session()!;
    expect(cookie).not.toContain(first.sid);
    // The sid opens nothing: presented as the session cookie, it is no session.
    const impostor = new FakeBrowser(s.t.gatehouse);
    impostor.cookies.set('gatehouse_session', first.sid);
    const page = await impostor.get(authorizeUrl({ client_id: 'rp-app', scope: 'openid' }));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('name="password"');
    // A new session has a new sid.
    expect((await logoutPage(browser)).status).toBe(204);
    expect((await s.signIn(browser, 'rp-app')).sid).not.toBe(first.sid);
  });

  it.each(TRIGGERS)(
    '%s sends each relying party of the session a logout token valid under §2.6',
    async (name, end) => {
      const s = await setup();
      const browser = s.browser();
      const { idToken, sid } = await s.signIn(browser, 'rp-app');
      await s.signIn(browser, 'rp-two');
      // demo-client takes part too, without a back-channel logout URI: it is not told.
      await s.signIn(browser, 'demo-client', 'demo-secret');
      // Another session of the same user, with rp-app: ending the first does not end it.
      const other = s.browser();
      const otherSid = (await s.signIn(other, 'rp-app')).sid;
      const everyone = name === 'gatehouse.revokeUser';
      await end(s, browser, idToken, sid);
      // The other session ends later (its own sign-out), unless revokeUser ended it already.
      if (!everyone) {
        await s.events.until('backchannel_logout.delivered', 2);
        expect((await logoutPage(other)).status).toBe(204);
      }
      await s.events.until('backchannel_logout.delivered', 3);
      const received = await s.rp.until(3);
      expect(received.map((r) => r.verdict)).toEqual(received.map(() => 'ok'));
      for (const request of received) {
        expect(request.contentType).toBe('application/x-www-form-urlencoded');
        expect(request.header).toMatchObject({ typ: 'logout+jwt', alg: 'RS256' });
        expect(request.claims).toMatchObject({
          iss: ISSUER,
          sub: 'user-1',
          aud: request.clientId,
          events: { [EVENT]: {} },
        });
        expect(request.claims).not.toHaveProperty('nonce');
        expect(request.claims!.exp! - request.claims!.iat!).toBe(120);
      }
      expect(
        received
          .filter((r) => r.claims!.sid === sid)
          .map((r) => r.clientId)
          .sort(),
      ).toEqual(['rp-app', 'rp-two']);
      expect(received.filter((r) => r.claims!.sid === otherSid).map((r) => r.clientId)).toEqual(['rp-app']);
      expect(received).toHaveLength(3);
      expect(s.events.outcomes().sort()).toEqual([
        'delivered rp-app 1',
        'delivered rp-app 1',
        'delivered rp-two 1',
      ]);
    },
  );

  it('answers the user before any relying party has answered (the logout page)', async () => {
    const s = await setup();
    const browser = s.browser();
    await s.signIn(browser, 'rp-app');
    s.rp.answer('hold');
    // The relying party holds its answer: the user's sign-out is answered anyway.
    expect((await logoutPage(browser)).status).toBe(204);
    await s.rp.untilHeld(1);
    expect(s.events.of('backchannel_logout.delivered')).toEqual([]);
    s.rp.release();
    const [delivered] = await s.events.until('backchannel_logout.delivered');
    expect(delivered).toMatchObject({ clientId: 'rp-app', userId: 'user-1', attempt: 1 });
  });

  it('tells each session once, however many times it is ended', async () => {
    const s = await setup();
    const browser = s.browser();
    const { sid } = await s.signIn(browser, 'rp-app');
    await s.t.gatehouse.revokeSession('user-1', sid);
    await s.rp.until(1);
    await s.t.gatehouse.revokeUser('user-1');
    await logoutPage(browser);
    await s.events.until('backchannel_logout.delivered');
    // A sign-in after the user's mark (`revokeUser` ends what was issued up to its millisecond).
    s.clock.advance(1);
    // A later session's token reaches the relying party after everything above was processed.
    const later = s.browser();
    await s.signIn(later, 'rp-app');
    await logoutPage(later);
    const received = await s.rp.until(2);
    expect(received.map((r) => r.claims!.sid === sid)).toEqual([true, false]);
  });

  it('retries a 500 with backoff, and each outcome is an audit record', async () => {
    const records: AuditRecord[] = [];
    const s = await setup({ audit: { write: (record) => void records.push(record) } });
    const browser = s.browser();
    await s.signIn(browser, 'rp-app');
    s.rp.answer(500, 503);
    await logoutPage(browser);
    await s.events.until('backchannel_logout.delivered');
    const received = await s.rp.until(3);
    // Each attempt signs a fresh token: a new jti, a fresh exp.
    expect(new Set(received.map((r) => r.claims!.jti)).size).toBe(3);
    expect(received.map((r) => r.verdict)).toEqual(['ok', 'ok', 'ok']);
    expect(s.events.outcomes()).toEqual([
      'failed rp-app 1 status 500',
      'failed rp-app 2 status 503',
      'delivered rp-app 3',
    ]);
    expect(s.events.of('backchannel_logout.failed').map((e) => e.retryInMs)).toEqual([10, 20]);
    const audited = records.filter((r) => r.type.startsWith('backchannel_logout.'));
    expect(audited).toEqual([
      expect.objectContaining({
        type: 'backchannel_logout.failed',
        outcome: 'failure',
        reason: 'status',
        clientId: 'rp-app',
        subject: 'user-1',
        details: expect.objectContaining({ status: '500', attempt: '1', retryInMs: '10' }),
      }),
      expect.objectContaining({
        type: 'backchannel_logout.failed',
        details: expect.objectContaining({ status: '503' }),
      }),
      expect.objectContaining({
        type: 'backchannel_logout.delivered',
        outcome: 'success',
        details: expect.objectContaining({ attempt: '3' }),
      }),
    ]);
  });

  it('gives up after maxAttempts when the relying party never answers in time', async () => {
    const s = await setup({ backchannelLogout: { timeoutMs: 100, maxAttempts: 2 } });
    const browser = s.browser();
    await s.signIn(browser, 'rp-app');
    s.rp.answer('hold', 'hold');
    await logoutPage(browser);
    await s.events.until('backchannel_logout.abandoned');
    expect(s.events.outcomes()).toEqual(['failed rp-app 1 timeout', 'abandoned rp-app 2 timeout']);
    expect(s.rp.received).toHaveLength(2);
  });

  it('does not retry an answer that retrying cannot change (400, 501, a redirect)', async () => {
    const s = await setup();
    for (const browser of [s.browser(), s.browser(), s.browser()]) await s.signIn(browser, 'rp-app');
    s.rp.answer(302, 400, 501);
    await s.t.gatehouse.revokeUser('user-1');
    await s.events.until('backchannel_logout.abandoned', 3);
    expect(s.events.outcomes().sort()).toEqual([
      'abandoned rp-app 1 redirect',
      'abandoned rp-app 1 status 400',
      'abandoned rp-app 1 status 501',
    ]);
    expect(s.rp.received).toHaveLength(3);
  });

  it('keeps at most maxConcurrentDeliveries logout requests in flight', async () => {
    const s = await setup({ backchannelLogout: { maxConcurrentDeliveries: 2 } });
    const browsers = [s.browser(), s.browser(), s.browser(), s.browser(), s.browser()];
    for (const browser of browsers) await s.signIn(browser, 'rp-app');
    s.rp.answer('hold', 'hold', 'hold', 'hold', 'hold');
    await s.t.gatehouse.revokeUser('user-1');
    for (let remaining = 5; remaining > 0; remaining--) {
      await s.rp.untilHeld(Math.min(2, remaining));
      expect(s.rp.held.length).toBeLessThanOrEqual(2);
      s.rp.release();
    }
    await s.events.until('backchannel_logout.delivered', 5);
    expect(s.rp.maxHeld).toBe(2);
    expect(new Set(s.rp.received.map((r) => r.claims!.sid)).size).toBe(5);
  });

  it('queues at most maxQueuedPerClient logout requests for one client, not touching the others', async () => {
    const s = await setup({ backchannelLogout: { maxQueuedPerClient: 2 } });
    const browsers = [s.browser(), s.browser(), s.browser()];
    for (const browser of browsers) await s.signIn(browser, 'rp-app');
    await s.signIn(browsers[0]!, 'rp-two');
    s.rp.answer('hold', 'hold', 'hold');
    await s.t.gatehouse.revokeUser('user-1');
    const [dropped] = await s.events.until('backchannel_logout.abandoned');
    expect(dropped).toMatchObject({ clientId: 'rp-app', reason: 'queue_full', attempt: 0 });
    await s.rp.untilHeld(3);
    expect(s.rp.held.length).toBe(3);
    for (let i = 0; i < 3; i++) s.rp.release();
    const delivered = await s.events.until('backchannel_logout.delivered', 3);
    expect(delivered.map((e) => e.clientId).sort()).toEqual(['rp-app', 'rp-app', 'rp-two']);
  });

  it('remembers the most recent maxClientsPerSession clients of a session', async () => {
    const s = await setup({ backchannelLogout: { maxClientsPerSession: 1 } });
    const browser = s.browser();
    await s.signIn(browser, 'rp-app');
    await s.signIn(browser, 'rp-two');
    await logoutPage(browser);
    await s.events.until('backchannel_logout.delivered');
    const received = await s.rp.until(1);
    expect(received.map((r) => r.clientId)).toEqual(['rp-two']);
  });

  it('costs a client without a back-channel logout URI nothing, and one with it a read (and a write when new)', async () => {
    const calls: string[] = [];
    const inner = memoryKeyValueStore();
    const record = (operation: string, key: string) => {
      if (key.startsWith('bcl-')) calls.push(operation);
    };
    const kv: KeyValueStore = {
      ...inner,
      get(key, now) {
        record('get', key);
        return inner.get(key, now);
      },
      add(key, value, expiresAt, now) {
        record('add', key);
        return inner.add(key, value, expiresAt, now);
      },
      swap(key, expected, value, expiresAt, now) {
        record('swap', key);
        return inner.swap(key, expected, value, expiresAt, now);
      },
      take(key, now) {
        record('take', key);
        return inner.take(key, now);
      },
    };
    const s = await setup({ storage: { kv } });
    const browser = s.browser();
    await s.signIn(browser, 'demo-client', 'demo-secret');
    expect(calls).toEqual([]);
    await s.signIn(browser, 'rp-app');
    expect(calls).toEqual(['get', 'add']);
    await s.signIn(browser, 'rp-app');
    expect(calls).toEqual(['get', 'add', 'get']);
    await s.signIn(browser, 'rp-two');
    expect(calls).toEqual(['get', 'add', 'get', 'get', 'swap']);
    await logoutPage(browser);
    await s.events.until('backchannel_logout.delivered', 2);
    expect(calls.slice(5)).toEqual(['take']);
  });

  it('signs with the client’s ID token algorithm', async () => {
    const s = await setup({}, (rp) => [
      {
        id: 'rp-es',
        type: 'public',
        redirectUris: [REDIRECT_URI],
        firstParty: true,
        idTokenSignedResponseAlg: 'ES256',
        backchannelLogoutUri: rp.uri('rp-es'),
      },
    ]);
    const browser = s.browser();
    const { idToken } = await signInPublic(s, browser, 'rp-es');
    expect(decodeProtectedHeader(idToken).alg).toBe('ES256');
    await logoutPage(browser);
    const [received] = await s.rp.until(1);
    expect(received).toMatchObject({ verdict: 'ok', header: { alg: 'ES256', typ: 'logout+jwt' } });
  });

  it('hands the work of each ended session to waitUntil, settled once its requests are done', async () => {
    const work: Promise<unknown>[] = [];
    const s = await setup({ backchannelLogout: { waitUntil: (promise) => void work.push(promise) } });
    const browser = s.browser();
    await s.signIn(browser, 'rp-app');
    s.rp.answer(500);
    await logoutPage(browser);
    expect(work).toHaveLength(1);
    await work[0];
    expect(s.events.outcomes()).toEqual(['failed rp-app 1 status 500', 'delivered rp-app 2']);
  });
});

describe('back-channel logout URIs of self-registered clients (RFC 7591)', () => {
  const register = (s: Setup, metadata: Record<string, unknown>) =>
    s.t.gatehouse.fetch(
      new Request(`${ISSUER}/oauth2/v1/register`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [REDIRECT_URI], ...metadata }),
      }),
    );

  it.each([
    ['http://rp.example.com/logout', /is not https/],
    ['https://10.1.2.3/logout', /private/],
    ['https://127.0.0.1/logout', /loopback/],
    ['http://127.0.0.1:4000/logout', /is not https/],
    ['https://rp.example.com/logout#now', /fragment/],
    ['/logout', /absolute URI/],
  ])('refuses %s with invalid_client_metadata', async (uri, description) => {
    const s = await setup({ dynamicRegistration: {} });
    const response = await register(s, { backchannel_logout_uri: uri });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: string; error_description: string };
    expect(body.error).toBe('invalid_client_metadata');
    expect(body.error_description).toMatch(description);
  });

  it('accepts an https URI, and echoes it with backchannel_logout_session_required', async () => {
    const s = await setup({ dynamicRegistration: {} });
    const response = await register(s, {
      backchannel_logout_uri: 'https://rp.example.com/logout?tenant=a',
      backchannel_logout_session_required: true,
    });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({
      backchannel_logout_uri: 'https://rp.example.com/logout?tenant=a',
      backchannel_logout_session_required: true,
    });
    expect((await register(s, { backchannel_logout_session_required: 'yes' })).status).toBe(400);
  });

  it('ignores the back-channel metadata when back-channel logout is off (RFC 7591 §2)', async () => {
    const t = await testInstance({ dynamicRegistration: {} });
    const response = await t.gatehouse.fetch(
      new Request(`${ISSUER}/oauth2/v1/register`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          redirect_uris: [REDIRECT_URI],
          backchannel_logout_uri: 'https://rp.example.com/logout',
        }),
      }),
    );
    expect(response.status).toBe(201);
    expect(await response.json()).not.toHaveProperty('backchannel_logout_uri');
  });

  it('accepts http://127.0.0.1 with allowLoopback (a development setting) and delivers there', async () => {
    const s = await setup({ dynamicRegistration: {}, backchannelLogout: { allowLoopback: true } });
    const registered = (await (
      await register(s, { backchannel_logout_uri: s.rp.uri('self'), client_name: 'Self' })
    ).json()) as { client_id: string; backchannel_logout_uri: string };
    expect(registered.backchannel_logout_uri).toBe(s.rp.uri('self'));
    s.rp.alias('self', registered.client_id);
    const browser = s.browser();
    const { sid } = await signInPublic(s, browser, registered.client_id);
    await logoutPage(browser);
    await s.events.until('backchannel_logout.delivered');
    const [received] = await s.rp.until(1);
    expect(received).toMatchObject({
      verdict: 'ok',
      clientId: registered.client_id,
      claims: { aud: registered.client_id, sid, sub: 'user-1' },
    });
    expect(s.events.outcomes()).toEqual([`delivered ${registered.client_id} 1`]);
  });

  it('refuses at delivery a registered URI whose host name resolves to a loopback address (no SSRF)', async () => {
    const resolved: string[] = [];
    const s = await setup({
      dynamicRegistration: {},
      backchannelLogout: {
        fetch: addressCheckingFetch({
          resolve: async (hostname) => {
            resolved.push(hostname);
            return [{ address: '127.0.0.1', family: 4 }];
          },
        }),
      },
    });
    const registered = (await (
      await register(s, { backchannel_logout_uri: 'https://rp.internal.example/logout' })
    ).json()) as { client_id: string };
    const browser = s.browser();
    await signInPublic(s, browser, registered.client_id);
    await logoutPage(browser);
    const [abandoned] = await s.events.until('backchannel_logout.abandoned');
    expect(abandoned).toMatchObject({ clientId: registered.client_id, reason: 'refused_url', attempt: 1 });
    expect(resolved).toEqual(['rp.internal.example']);
    expect(s.rp.received).toEqual([]);
  });
});

/**
 * Signs `browser` in to a public client (login, and consent for a self-registered one) and redeems
 * its code with PKCE; the relying party keeps the ID token's session.
 */
async function signInPublic(s: Setup, browser: FakeBrowser, clientId: string) {
  let response = await browser.get(authorizeUrl({ client_id: clientId, scope: 'openid' }));
  for (let step = 0; step < 4 && response.status === 200; step++) {
    const html = await response.text();
    response = html.includes('name="password"')
      ? await browser.submitAndFollow(html, { username: 'demo', password: 'demo-password' })
      : await browser.submitAndFollow(html, { decision: 'allow' });
  }
  const code = new URL(response.headers.get('location')!).searchParams.get('code')!;
  const answer = await s.t.gatehouse.fetch(
    new Request(`${ISSUER}/oauth2/v1/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        client_id: clientId,
        redirect_uri: REDIRECT_URI,
        code_verifier: PKCE_VERIFIER,
      }),
    }),
  );
  const { id_token: idToken } = (await answer.json()) as { id_token: string };
  const claims = JSON.parse(Buffer.from(idToken.split('.')[1]!, 'base64url').toString()) as oauth.IDToken;
  s.rp.signedIn(claims);
  return { idToken, sid: claims.sid as string };
}
