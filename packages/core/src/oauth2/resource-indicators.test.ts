import { createGatehouse, memoryClientStore } from '@gatehousejs/core';
import { kvConsentStore, memoryKeyValueStore } from '@gatehousejs/core/engine';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { authorizeUrl, callbackParams, FakeBrowser, logIn } from '../../test/browser-flow';
import {
  ISSUER,
  PKCE_VERIFIER,
  post,
  REDIRECT_URI,
  type TestInstance,
  testClients,
  testInstance,
  testKey,
} from '../../test/fixtures';

const MCP = 'http://localhost:3000/mcp';
const REPORTS = 'https://reports.example.com/api';
const DEFAULT_AUDIENCE = `${ISSUER}/api/v1`;

const withResources = () => testInstance({ resources: [MCP, REPORTS] });

/** An authorize URL for the public first-party client, with one `resource` parameter per value. */
function authorizeWith(resources: readonly string[], params: Record<string, string | null> = {}): string {
  const url = new URL(authorizeUrl({ client_id: 'demo-spa', scope: 'read', ...params }));
  for (const resource of resources) url.searchParams.append('resource', resource);
  return url.href;
}

/** Logs the demo user in through the authorize URL and returns the redirect's parameters. */
async function authorize(t: TestInstance, url: string): Promise<URLSearchParams> {
  const browser = new FakeBrowser(t.gatehouse);
  return callbackParams(await browser.follow(await logIn(browser, url)));
}

/** A token request of `demo-spa` (public: `client_id` in the body); `resource` values appended. */
function tokenRequest(form: Record<string, string>, resources: readonly string[] = []) {
  const body = new URLSearchParams({ client_id: 'demo-spa', ...form });
  for (const resource of resources) body.append('resource', resource);
  return post('/oauth2/v1/token', body.toString());
}

async function redeem(t: TestInstance, code: string, resources: readonly string[] = []) {
  return t.gatehouse.fetch(
    tokenRequest(
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: PKCE_VERIFIER },
      resources,
    ),
  );
}

async function refresh(t: TestInstance, refreshToken: string, resources: readonly string[] = []) {
  return t.gatehouse.fetch(
    tokenRequest({ grant_type: 'refresh_token', refresh_token: refreshToken }, resources),
  );
}

const audienceOf = (token: string) => decodeJwt(token).aud;

describe('resource indicators (RFC 8707)', () => {
  it('gives the access token exactly the authorized resource as its audience', async () => {
    const t = await withResources();
    const code = (await authorize(t, authorizeWith([MCP]))).get('code')!;
    const response = await redeem(t, code);
    expect(response.status).toBe(200);
    expect(audienceOf((await response.json()).access_token)).toBe(MCP);
  });

  it('keeps the default audience when no resource is named', async () => {
    const t = await withResources();
    const code = (await authorize(t, authorizeWith([]))).get('code')!;
    expect(audienceOf((await (await redeem(t, code)).json()).access_token)).toBe(DEFAULT_AUDIENCE);
  });

  it('issues several resources as an audience list, and lets the token request pick among them', async () => {
    const t = await withResources();
    const both = (await authorize(t, authorizeWith([MCP, REPORTS]))).get('code')!;
    expect(audienceOf((await (await redeem(t, both)).json()).access_token)).toEqual([MCP, REPORTS]);
    const again = (await authorize(t, authorizeWith([MCP, REPORTS]))).get('code')!;
    expect(audienceOf((await (await redeem(t, again, [REPORTS])).json()).access_token)).toBe(REPORTS);
  });

  it('redirects invalid_target for a resource the instance does not know, with state and iss', async () => {
    const t = await withResources();
    // Refused before any login: nothing of an invalid request is shown to the user.
    const query = callbackParams(
      await t.gatehouse.fetch(new Request(authorizeWith(['https://elsewhere.example/api']))),
    );
    expect(query.get('error')).toBe('invalid_target');
    expect(query.get('state')).toBe('xyz');
    expect(query.get('iss')).toBe(ISSUER);
    expect(query.has('code')).toBe(false);
  });

  it.each([
    ['a relative reference', '/mcp'],
    ['a fragment', `${MCP}#part`],
    ['a space inside a value', 'http://localhost:3000/m cp'],
    ['too many values', Array.from({ length: 11 }, (_, i) => `${MCP}${i}`).join(' ')],
  ])('refuses %s with invalid_target', async (_, value) => {
    const t = await withResources();
    const response = await t.gatehouse.fetch(new Request(authorizeWith([value])));
    expect(response.status).toBe(303);
    expect(callbackParams(response).get('error')).toBe('invalid_target');
  });

  it('refuses at the token endpoint a resource the user did not authorize, without burning the code', async () => {
    const t = await withResources();
    const code = (await authorize(t, authorizeWith([]))).get('code')!;
    // GHSA-p2fr-6hmx-4528: a client must not get another audience by naming it later.
    const widened = await redeem(t, code, [MCP]);
    expect(widened.status).toBe(400);
    expect(await widened.json()).toMatchObject({ error: 'invalid_target' });
    const response = await redeem(t, code);
    expect(response.status).toBe(200);
    expect(audienceOf((await response.json()).access_token)).toBe(DEFAULT_AUDIENCE);
  });

  it('lets a refresh narrow the resources, never widen them, and keeps the grant whole', async () => {
    const t = await withResources();
    const code = (await authorize(t, authorizeWith([MCP, REPORTS], { scope: 'read' }))).get('code')!;
    const first = await (await redeem(t, code)).json();
    const narrowed = await refresh(t, first.refresh_token, [MCP]);
    expect(narrowed.status).toBe(200);
    const second = await narrowed.json();
    expect(audienceOf(second.access_token)).toBe(MCP);
    const wider = await refresh(t, second.refresh_token, [DEFAULT_AUDIENCE]);
    expect(wider.status).toBe(400);
    expect(await wider.json()).toMatchObject({ error: 'invalid_target' });
    // The refused request rotated nothing: the same refresh token still works, for every resource.
    const whole = await refresh(t, second.refresh_token);
    expect(audienceOf((await whole.json()).access_token)).toEqual([MCP, REPORTS]);
  });

  it('holds a client to its own resources when its registration lists them', async () => {
    const clients = (await testClients()).map((client) =>
      client.id === 'demo-spa' ? { ...client, resources: [REPORTS] } : client,
    );
    const t = await testInstance({ resources: [MCP, REPORTS], clients: memoryClientStore(clients) });
    const refused = await t.gatehouse.fetch(new Request(authorizeWith([MCP])));
    expect(callbackParams(refused).get('error')).toBe('invalid_target');
    expect((await authorize(t, authorizeWith([REPORTS]))).has('code')).toBe(true);
  });

  it('asks for consent again for a resource the user has not allowed, shows it on the page, and remembers it', async () => {
    const consentsKv = memoryKeyValueStore();
    const consents = kvConsentStore(consentsKv);
    const t = await testInstance({ resources: [MCP], storage: { kv: consentsKv } });
    const thirdParty = (resources: string[]) =>
      authorizeWith(resources, {
        client_id: 'other-client',
        code_challenge: null,
        code_challenge_method: null,
      });
    const browser = new FakeBrowser(t.gatehouse);
    const consentPage = await browser.follow(await logIn(browser, thirdParty([])));
    const firstPage = await consentPage.text();
    // No resource named: the page names none (the instance's own API).
    expect(firstPage).not.toContain('class="resources"');
    expect(callbackParams(await browser.submitAndFollow(firstPage, { decision: 'allow' })).has('code')).toBe(
      true,
    );
    // Same scope, now for the MCP resource: the earlier consent does not cover it, and the page
    // shows the user where the access will reach.
    const again = await browser.get(thirdParty([MCP]));
    expect(again.status).toBe(200);
    const secondPage = await again.text();
    expect(secondPage).toContain(`<ul class="resources"><li><code>${MCP}</code></li></ul>`);
    const allowed = await browser.submitAndFollow(secondPage, { decision: 'allow' });
    expect(callbackParams(allowed).has('code')).toBe(true);
    expect((await consents.findConsent('user-1', 'other-client', t.clock.now()))?.ext).toEqual({
      resources: [MCP],
      consentedAt: t.clock.now(),
    });
    // Now covered: straight to the code.
    expect(callbackParams(await browser.get(thirdParty([MCP]))).has('code')).toBe(true);
  });

  it('lists the known resources in the metadata (RFC 9728 section 4)', async () => {
    const t = await withResources();
    const metadata = await (
      await t.gatehouse.fetch(new Request(`${ISSUER}/.well-known/oauth-authorization-server`))
    ).json();
    expect(metadata.protected_resources).toEqual([DEFAULT_AUDIENCE, MCP, REPORTS]);
  });

  it('refuses a resources option that is not a list of absolute URIs without fragment', async () => {
    const base = {
      issuer: ISSUER,
      keys: [await testKey()],
      clients: memoryClientStore([]),
      users: {} as never,
    };
    for (const resources of [['/relative'], [`${MCP}#x`], 'http://localhost:3000/mcp']) {
      expect(() =>
        createGatehouse({
          ...base,
          users: { verifyPassword: async () => null, findUser: async () => null },
          resources: resources as string[],
        }),
      ).toThrow(/resources/);
    }
  });
});
