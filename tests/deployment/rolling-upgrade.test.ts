/**
 * A rolling upgrade: a process of the previous release (`tests/support/previous-release.ts`: the
 * newest `v*` tag, or while none exists the last commit of the previous round) and a process of
 * this checkout side by side behind one balancer, on one Redis and on one PostgreSQL (the
 * machine's, a namespace of their own). The previous release starts first and migrates the engine
 * with its migrations; this checkout's process then applies its own while the previous one serves.
 * Whatever either issued, both honour: access tokens (the Auth API's and the code flow's), refresh
 * tokens (refreshed at one, then the other), a revocation made at one, sessions (a sign-in at one
 * is a session at the other: the authorization request there needs no login), and dynamic client
 * registrations (registered at one, read at the other with its registration access token).
 */
import { generateKeys } from '@gatehousejs/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { navigate, signIn } from '../../examples/conformance/src/code-flow.js';
import { CookieClient } from '../../examples/conformance/src/harness.js';
import { type AppProcess, BACKEND_HEADER, type Fleet, startFleet } from '../support/engines/app-processes.js';
import { dropNamespace } from '../support/engines/namespaces.js';
import {
  extractRelease,
  isShallowClone,
  type PreviousRelease,
  previousReleaseRef,
} from '../support/previous-release.js';

const LAG_MS = 1000;
const FORM = 'application/x-www-form-urlencoded';
const CLIENT = `Basic ${Buffer.from('app-client:app-secret').toString('base64')}`;
const USER = `Basic ${Buffer.from('load:load-password').toString('base64')}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const engines = [
  { store: 'redis', variable: 'REDIS_URL' },
  { store: 'postgres', variable: 'DATABASE_URL' },
] as const;

/** A browser whose every request goes to one process (session affinity at the balancer). */
class PinnedBrowser extends CookieClient {
  constructor(private readonly backend: string) {
    super();
  }
  override fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set(BACKEND_HEADER, this.backend);
    return super.fetch(url, { ...init, headers });
  }
}

let release: PreviousRelease | undefined;
let unavailable: string | undefined;
beforeAll(async () => {
  const { ref, why } = await previousReleaseRef();
  try {
    release = await extractRelease(ref);
    console.info(`rolling upgrade: previous release ${ref} (${why}), commit ${release.commit}`);
  } catch (error) {
    const shallow = await isShallowClone();
    unavailable = shallow
      ? `the clone is shallow and lacks the previous release ${ref} (git fetch --unshallow)`
      : `the previous release ${ref} cannot be extracted (${(error as Error).message.split('\n')[0]})`;
    // A shallow clone is the checkout's limit, not a failure of what is tested.
    if (!shallow && process.env.GATEHOUSE_FAULTS_REQUIRED === '1') throw new Error(unavailable);
    console.warn(`rolling upgrade skipped: ${unavailable}`);
  }
}, 60_000);
afterAll(() => release?.remove());

for (const { store, variable } of engines) {
  const url = process.env[variable];
  if (!url) console.warn(`rolling upgrade on ${store}: skipped, ${variable} is not set`);

  describe.skipIf(!url)(`the previous release and this one side by side on ${store}`, () => {
    const namespace = `gatehouse_upgrade_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`;
    let fleet: Fleet | undefined;
    let previous: AppProcess;
    let current: AppProcess;
    beforeAll(async () => {
      if (!release) return;
      const keys = JSON.stringify([await generateKeys('ES256'), await generateKeys('RS256')]);
      fleet = await startFleet(
        {
          GATEHOUSE_STORE: store,
          [variable]: url!,
          GATEHOUSE_STORE_NAMESPACE: namespace,
          APP_KEYS: keys,
          APP_MAX_LAG_MS: String(LAG_MS),
        },
        [{ name: 'previous', sources: release.sources }, { name: 'current' }],
      );
      [previous, current] = fleet.apps as [AppProcess, AppProcess];
    }, 180_000);
    afterAll(async () => {
      await fleet?.stop();
      if (fleet) await dropNamespace(store, url!, namespace);
    });

    const both = () => [
      { issuer: previous, other: current },
      { issuer: current, other: previous },
    ];
    const token = (app: AppProcess, fields: Record<string, string>) =>
      fetch(`${app.origin}/app/oauth2/v1/token`, {
        method: 'POST',
        headers: { 'Content-Type': FORM, Authorization: CLIENT },
        body: new URLSearchParams(fields),
      });
    const me = (app: AppProcess, headers: Record<string, string>) =>
      fetch(`${app.origin}/app/api/me`, { headers }).then((response) => response.status);
    /** The code flow, every step at `app`; returns the browser and the exchanged tokens. */
    const codeFlow = async (app: AppProcess) => {
      const flow = await signIn({
        issuer: `${fleet!.origin}/app`,
        origin: fleet!.origin,
        clientId: 'app-client',
        redirectUri: `${fleet!.origin}/callback`,
        scope: 'openid offline_access',
        username: 'load',
        password: 'load-password',
        browser: new PinnedBrowser(app.origin),
      });
      const response = await token(app, {
        grant_type: 'authorization_code',
        code: flow.callback.get('code')!,
        redirect_uri: `${fleet!.origin}/callback`,
        code_verifier: flow.verifier,
      });
      expect(response.status).toBe(200);
      return { flow, tokens: (await response.json()) as { access_token: string; refresh_token: string } };
    };

    it('honours at each release the access and refresh tokens the other issued, and its revocations', async (context) => {
      if (!fleet) return context.skip(unavailable);
      for (const { issuer, other } of both()) {
        const password = await fetch(`${issuer.origin}/app/auth/v1/token`, {
          method: 'POST',
          headers: { Authorization: USER },
        });
        expect(password.status).toBe(200);
        const bearer = ((await password.json()) as { access_token: string }).access_token;
        expect(
          await me(other, { Authorization: `Bearer ${bearer}` }),
          `${issuer.name}'s Auth API token`,
        ).toBe(200);

        const { tokens } = await codeFlow(issuer);
        expect(await me(other, { Authorization: `Bearer ${tokens.access_token}` })).toBe(200);
        const once = await token(other, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
        expect(once.status, `${issuer.name}'s refresh token at ${other.name}`).toBe(200);
        const next = (await once.json()) as { access_token: string; refresh_token: string };
        const twice = await token(issuer, { grant_type: 'refresh_token', refresh_token: next.refresh_token });
        expect(twice.status, `${other.name}'s refresh token at ${issuer.name}`).toBe(200);

        // A revocation at the other release holds at the issuer within the lag.
        const revoked = await fetch(`${other.origin}/app/auth/v1/token/revoke`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${bearer}` },
        });
        expect(revoked.status).toBe(200);
        await sleep(LAG_MS);
        expect(await me(issuer, { Authorization: `Bearer ${bearer}` }), `revoked at ${other.name}`).toBe(401);
      }
    });

    it('keeps a session made at either release signed in at the other', async (context) => {
      if (!fleet) return context.skip(unavailable);
      for (const { issuer, other } of both()) {
        const { flow } = await codeFlow(issuer);
        const cookie = [...flow.browser.cookies].map(([name, { value }]) => `${name}=${value}`).join('; ');
        expect(await me(other, { cookie }), `${issuer.name}'s session at ${other.name}`).toBe(200);
        // An authorization request at the other release goes straight back with a code: no login page.
        const there = new PinnedBrowser(other.origin);
        for (const [name, stored] of flow.browser.cookies) there.cookies.set(name, stored);
        const redirectUri = `${fleet.origin}/callback`;
        const { url, response } = await navigate(
          there,
          `${fleet.origin}/app/oauth2/v1/authorize?${new URLSearchParams({
            response_type: 'code',
            client_id: 'app-client',
            redirect_uri: redirectUri,
            scope: 'openid',
            state: 'upgrade',
          })}`,
          (target) => target.href.startsWith(redirectUri),
        );
        const location = new URL(response.headers.get('location') ?? url.href, url);
        expect(
          location.href.startsWith(redirectUri),
          `${issuer.name}'s session at ${other.name}: ${location}`,
        ).toBe(true);
        expect(location.searchParams.get('code')).toBeTruthy();
      }
    });

    it('serves at each release the client registrations the other made', async (context) => {
      if (!fleet) return context.skip(unavailable);
      for (const { issuer, other } of both()) {
        const registered = await fetch(`${issuer.origin}/app/oauth2/v1/register`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            client_name: `registered at ${issuer.name}`,
            redirect_uris: ['http://127.0.0.1:8123/callback'],
            token_endpoint_auth_method: 'none',
          }),
        });
        expect(registered.status).toBe(201);
        const client = (await registered.json()) as {
          client_id: string;
          registration_access_token: string;
        };
        const read = await fetch(
          `${other.origin}/app/oauth2/v1/register/${encodeURIComponent(client.client_id)}`,
          {
            headers: { Authorization: `Bearer ${client.registration_access_token}` },
          },
        );
        expect(read.status, `${issuer.name}'s registration at ${other.name}`).toBe(200);
        expect(((await read.json()) as { client_id: string }).client_id).toBe(client.client_id);
      }
    });
  });
}
