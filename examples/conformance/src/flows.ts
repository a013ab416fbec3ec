/**
 * The conformance flows: end-to-end over real HTTP against one running server, with nothing that
 * knows which framework or runtime answers. `test/conformance.test.ts` runs them against both demo
 * instances (`demo`, `acme`) of every Node.js target, `examples/runtimes` against both served by Bun,
 * Deno and workerd.
 */
import { ACME, DEMO, type DEMO_INSTANCES } from '@gatehousejs/demo';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cibaFlows } from './ciba-flows.js';
import { clientAuthenticationFlows } from './client-auth-flows.js';
import { navigate, parseLoginForm } from './code-flow.js';
import { deviceFlows } from './device-flows.js';
import { dpopAndParFlows } from './dpop-par-flows.js';
import { ALLOWED_ORIGIN, CookieClient, type RunningTarget, rawRequest, startTarget } from './harness.js';
import {
  basic,
  CLIENT_AUTH,
  FORM,
  type InstanceClient,
  instanceClient,
  SCOPE,
  SESSION_COOKIE,
  type TokenSet,
  userBasic,
} from './instance-client.js';
import { instanceIsolationFlows } from './instance-isolation-flows.js';
import { portalFlows } from './portal-flows.js';
import { richAndSignedRequestFlows } from './rar-jar-flows.js';
import type { Target } from './targets.js';

const FOREIGN_ORIGIN = 'http://evil.conformance.test';

/** A demo instance: `demo` or `acme`. */
export type DemoInstanceName = (typeof DEMO_INSTANCES)[number];

/** The demo user's id on each instance (its username and password are the same on both). */
const USER_IDS: Readonly<Record<DemoInstanceName, string>> = { demo: DEMO.user.id, acme: ACME.user.id };

/** Options of {@link conformanceSuite}. */
export interface ConformanceSuiteOptions {
  /** The describe block's title. Default `conformance: <target name>`. */
  readonly title?: string;
  /** Why the target cannot run here: the flows are registered as skipped, with the reason in the title. */
  readonly skip?: string;
  /**
   * The demo instances the target serves (issuer `{origin}/{instance}`): the flows run against each,
   * on the one running server, and with both, the checks that nothing of one works at the other.
   * Default `['demo']`.
   */
  readonly instances?: readonly DemoInstanceName[];
  /** Registers further tests in the same block, against the same running server. */
  readonly also?: (server: () => RunningTarget) => void;
}

/** Registers the conformance flows for `target`, started once for the whole suite. */
export function conformanceSuite(target: Target, options: ConformanceSuiteOptions = {}): void {
  const title = options.title ?? `conformance: ${target.name}`;
  const instances = options.instances ?? ['demo'];
  const suite = options.skip === undefined ? describe : describe.skip;
  suite(options.skip === undefined ? title : `${title} (skipped: ${options.skip})`, () => {
    let server: RunningTarget;

    beforeAll(async () => {
      server = await startTarget(target);
    }, 120_000);
    afterAll(async () => {
      await server?.stop();
    });

    for (const instance of instances) {
      describe(`instance ${instance}`, () => instanceFlows(target, () => server, instance));
    }
    if (instances.includes('demo') && instances.includes('acme')) {
      describe('instances demo and acme', () => instanceIsolationFlows(() => server.origin));
    }

    // Issue 29: sign-in handed to the host through the interactions API.
    if (target.portal) describe('the portal (interactions)', () => portalFlows(() => server));

    options.also?.(() => server);
  });
}

/** The flows against one instance of the running `server()`, as the demo client and user. */
function instanceFlows(target: Target, server: () => RunningTarget, instance: DemoInstanceName): void {
  const userId = USER_IDS[instance];
  let client: InstanceClient;
  const at = (path: string) => client.at(path);

  beforeAll(() => {
    client = instanceClient(server().origin, instance);
  });

  it('serves the metadata of its issuer, also to HEAD, at both RFC 8414 locations, and 404 for unknown paths', async () => {
    const response = await fetch(at('/.well-known/oauth-authorization-server'));
    expect(response.status).toBe(200);
    const metadata = await response.json();
    expect(metadata.issuer).toBe(client.issuer);
    expect(metadata.token_endpoint).toBe(at('/oauth2/v1/token'));
    const head = await fetch(at('/.well-known/oauth-authorization-server'), { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    // RFC 8414 §3: the path-inserted location, what oauth4webapi discovery asks for.
    const inserted = await fetch(`${client.origin}/.well-known/oauth-authorization-server/${instance}`);
    expect(inserted.status).toBe(200);
    expect((await inserted.json()).issuer).toBe(client.issuer);
    // Adapters let unknown paths fall through to the host, so only the status is common.
    expect((await fetch(at('/oauth2/v1/nothing-here'))).status).toBe(404);
  });

  const traceSkipped = target.answeredByFramework?.trace;
  it.skipIf(traceSkipped !== undefined)(
    `answers TRACE on its paths 405 with Allow, never a 5xx${traceSkipped ? ` (skipped: ${traceSkipped})` : ''}`,
    async () => {
      for (const [url, allow] of [
        [at('/oauth2/v1/token'), 'POST'],
        [at('/oauth2/v1/authorize'), 'GET, POST'],
        [`${client.origin}/.well-known/oauth-authorization-server/${instance}`, 'GET, HEAD'],
        [at('/api/v1/tickets'), 'POST'],
      ] as const) {
        const answer = await rawRequest(url, 'TRACE');
        expect({ url, status: answer.status, allow: answer.headers.allow }).toEqual({
          url,
          status: 405,
          allow,
        });
        expect(JSON.parse(answer.body).error).toBe('method_not_allowed');
      }
    },
  );

  it('runs the code flow through the login form and returns code and state to the client', async () => {
    const { browser, state, callback } = await client.signIn();
    expect(callback.get('state')).toBe(state);
    expect(callback.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const cookie = browser.cookies.get(SESSION_COOKIE)!.header;
    expect(cookie).toMatch(/;\s*HttpOnly/i);
    expect(cookie).toMatch(/;\s*SameSite=(Lax|Strict)/i);
  });

  it('exchanges a code exactly once, and refuses repeated parameters', async () => {
    const { callback, verifier } = await client.signIn();
    const code = callback.get('code')!;
    const first = await client.tokenRequest({
      grant_type: 'authorization_code',
      code,
      redirect_uri: client.redirectUri,
      code_verifier: verifier,
    });
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-store');
    const tokens = (await first.json()) as TokenSet;
    expect(tokens.token_type).toBe('Bearer');
    expect(Number.isInteger(tokens.expires_in) && tokens.expires_in > 0).toBe(true);
    expect(tokens.access_token.split('.')).toHaveLength(3);
    expect(typeof tokens.refresh_token).toBe('string');

    const replay = await client.tokenRequest({
      grant_type: 'authorization_code',
      code,
      redirect_uri: client.redirectUri,
      code_verifier: verifier,
    });
    expect(replay.status).toBe(400);
    expect((await replay.json()).error).toBe('invalid_grant');

    const repeated = await client.tokenRequest('grant_type=refresh_token&refresh_token=a&refresh_token=b');
    expect(repeated.status).toBe(400);
    expect((await repeated.json()).error).toBe('invalid_request');

    const wrongSecret = await client.tokenRequest(
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
      basic(DEMO.client.id, 'wrong'),
    );
    expect(wrongSecret.status).toBe(401);
    expect((await wrongSecret.json()).error).toBe('invalid_client');
    expect(wrongSecret.headers.get('www-authenticate')).toMatch(/^Basic /);
  });

  it('refreshes with rotation, and treats reuse of a rotated refresh token as invalid', async () => {
    const { tokens } = await client.signedInTokens();
    const refreshed = await client.tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
    });
    expect(refreshed.status).toBe(200);
    const next = (await refreshed.json()) as TokenSet;
    expect(next.access_token).not.toBe(tokens.access_token);
    expect(next.refresh_token).not.toBe(tokens.refresh_token);
    const reuse = await client.tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
    });
    expect(reuse.status).toBe(400);
    expect((await reuse.json()).error).toBe('invalid_grant');
  });

  it('revokes refresh and access tokens', async () => {
    const { tokens } = await client.signedInTokens();
    const revoke = (token: string) =>
      fetch(at('/oauth2/v1/revoke'), {
        method: 'POST',
        headers: { 'Content-Type': FORM, Authorization: CLIENT_AUTH },
        body: new URLSearchParams({ token }),
      });
    expect((await revoke(tokens.access_token)).status).toBe(200);
    expect((await (await client.introspect(tokens.access_token)).json()).active).toBe(false);
    expect((await revoke(tokens.refresh_token)).status).toBe(200);
    const refresh = await client.tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
    });
    expect(refresh.status).toBe(400);
    // RFC 7009 §2.2: an unknown token is answered 200 as well.
    expect((await revoke('no-such-token')).status).toBe(200);
  });

  clientAuthenticationFlows(() => client.issuer);
  dpopAndParFlows(() => client);
  richAndSignedRequestFlows(() => client);
  deviceFlows(() => client.issuer, userId);
  cibaFlows(() => client.issuer, userId);

  it('introspects for authenticated clients only', async () => {
    const { tokens } = await client.signedInTokens();
    const active = await client.introspect(tokens.access_token);
    expect(active.status).toBe(200);
    expect(active.headers.get('cache-control')).toBe('no-store');
    expect(await active.json()).toMatchObject({
      active: true,
      sub: userId,
      client_id: DEMO.client.id,
    });
    expect(await (await client.introspect('not-a-token')).json()).toEqual({ active: false });
    const anonymous = await fetch(at('/oauth2/v1/introspect'), {
      method: 'POST',
      headers: { 'Content-Type': FORM },
      body: new URLSearchParams({ token: tokens.access_token }),
    });
    expect(anonymous.status).toBe(401);
  });

  it('answers userinfo by bearer token and by session cookie, and 401 without either', async () => {
    const { browser, tokens } = await client.signedInTokens();
    const byBearer = await fetch(at('/oauth2/v1/userinfo'), {
      headers: { Authorization: `Bearer ${tokens.access_token}` },
    });
    expect(byBearer.status).toBe(200);
    expect((await byBearer.json()).sub).toBe(userId);
    const bySession = await fetch(at('/oauth2/v1/userinfo'), {
      headers: {
        Accept: 'application/json',
        Cookie: browser.only(SESSION_COOKIE),
        'Sec-Fetch-Site': 'same-origin',
      },
    });
    expect(bySession.status).toBe(200);
    expect((await bySession.json()).sub).toBe(userId);
    const anonymous = await fetch(at('/oauth2/v1/userinfo'), { headers: { Accept: 'application/json' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });

  it('issues Auth API tokens for user Basic credentials only', async () => {
    const issued = await fetch(at('/auth/v1/token'), {
      method: 'POST',
      headers: { Authorization: userBasic(DEMO.user.username, DEMO.user.password) },
    });
    expect(issued.status).toBe(200);
    expect(issued.headers.get('cache-control')).toBe('no-store');
    const { access_token } = (await issued.json()) as { access_token: string };
    const listed = await client.tickets({ Authorization: `Bearer ${access_token}` });
    expect(listed.status).toBe(200);
    const refused = await fetch(at('/auth/v1/token'), {
      method: 'POST',
      headers: { Authorization: userBasic(DEMO.user.username, 'wrong-password') },
    });
    expect(refused.status).toBe(401);
  });

  it('lists tickets by bearer token and by session cookie, and 401 without credentials', async () => {
    const { browser, tokens } = await client.signedInTokens();
    const byBearer = await client.tickets({ Authorization: `Bearer ${tokens.access_token}` });
    expect(byBearer.status).toBe(200);
    const list = (await byBearer.json()) as { tickets: { ownerSub: string }[] };
    expect(list.tickets).toHaveLength(3);
    expect(list.tickets.every((ticket) => ticket.ownerSub === userId)).toBe(true);

    const bySession = await client.tickets(
      { Cookie: browser.only(SESSION_COOKIE), Origin: client.origin, 'Sec-Fetch-Site': 'same-origin' },
      '{"limit":2}',
    );
    expect(bySession.status).toBe(200);
    expect(((await bySession.json()) as { tickets: unknown[] }).tickets).toHaveLength(2);

    const anonymous = await client.tickets({});
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer /);
    const badLimit = await client.tickets(
      { Authorization: `Bearer ${tokens.access_token}` },
      '{"limit":"all"}',
    );
    expect(badLimit.status).toBe(400);
    expect((await badLimit.json()).error).toBe('invalid_request');
  });

  it('answers CORS preflights for allowed origins only', async () => {
    const preflight = (origin: string) =>
      fetch(at('/api/v1/tickets'), {
        method: 'OPTIONS',
        headers: {
          Origin: origin,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'content-type, authorization',
        },
      });
    const allowed = await preflight(ALLOWED_ORIGIN);
    expect(allowed.status).toBeGreaterThanOrEqual(200);
    expect(allowed.status).toBeLessThan(300);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(ALLOWED_ORIGIN);
    expect(allowed.headers.get('access-control-allow-credentials')).toBe('true');
    expect(allowed.headers.get('access-control-allow-methods')).toMatch(/POST/);
    expect(allowed.headers.get('vary')).toMatch(/Origin/i);
    const foreign = await preflight(FOREIGN_ORIGIN);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses cross-site use of the session and login forms without the CSRF token', async () => {
    const { browser } = await client.signIn();
    const crossSite = await client.tickets({
      Cookie: browser.only(SESSION_COOKIE),
      Origin: FOREIGN_ORIGIN,
      'Sec-Fetch-Site': 'cross-site',
    });
    expect(crossSite.status).toBe(403);
    expect(crossSite.headers.get('access-control-allow-origin')).toBeNull();

    // A login form posted without its CSRF token (what a forged cross-site form would do).
    const fresh = new CookieClient();
    const { response: page } = await navigate(
      fresh,
      `${at('/oauth2/v1/authorize')}?${new URLSearchParams({
        response_type: 'code',
        client_id: DEMO.client.id,
        redirect_uri: client.redirectUri,
        state: 'csrf-check',
        scope: SCOPE,
      })}`,
    );
    const form = parseLoginForm(await page.text());
    const { csrf_token: _dropped, ...withoutToken } = form.fields;
    const forged = await fresh.fetch(new URL(form.action, client.origin).href, {
      method: 'POST',
      headers: { 'Content-Type': FORM, Origin: client.origin, 'Sec-Fetch-Site': 'same-origin' },
      body: new URLSearchParams({
        ...withoutToken,
        username: DEMO.user.username,
        password: DEMO.user.password,
      }),
    });
    expect(forged.status).toBe(403);
    expect(fresh.cookies.has(SESSION_COOKIE)).toBe(false);

    const foreignForm = await fresh.fetch(new URL(form.action, client.origin).href, {
      method: 'POST',
      headers: { 'Content-Type': FORM, Origin: FOREIGN_ORIGIN, 'Sec-Fetch-Site': 'cross-site' },
      body: new URLSearchParams({
        ...form.fields,
        username: DEMO.user.username,
        password: DEMO.user.password,
      }),
    });
    expect(foreignForm.status).toBe(403);
    expect(fresh.cookies.has(SESSION_COOKIE)).toBe(false);
  });
}
