import { withMemoryFallback } from '@gatehousejs/core';
import { hashSecret, kvSessionStore, memoryGrantStore, memoryKeyValueStore } from '@gatehousejs/core/engine';
import { createDemo, DEMO, demoApi, SAMPLE_TICKETS_PER_CALLER } from '@gatehousejs/demo';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';

const PARTNER = 'http://localhost:4100';

async function demoWithApi() {
  const grants = memoryGrantStore();
  const kv = memoryKeyValueStore();
  const sessions = kvSessionStore(kv);
  const demo = await createDemo({
    port: 3999,
    allowedOrigins: [PARTNER],
    warn: () => {},
    overrides: { storage: withMemoryFallback({ grants, kv }) },
  });
  const api = demoApi(demo.gatehouse);
  const url = `${demo.issuer}/api/v1/tickets`;
  const call = (init: RequestInit & { headers?: Record<string, string> } = {}) =>
    api(new Request(url, { method: 'POST', ...init }));
  const json = (body: unknown, headers: Record<string, string> = {}) =>
    call({ headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });

  const basic = `Basic ${btoa(`${DEMO.user.username}:${DEMO.user.password}`)}`;
  const authApiToken = async () => {
    const response = await demo.gatehouse.fetch(
      new Request(`${demo.issuer}/auth/v1/token`, { method: 'POST', headers: { Authorization: basic } }),
    );
    expect(response.status).toBe(200);
    return ((await response.json()) as { access_token: string }).access_token;
  };
  /** An OAuth 2.0 token of the demo client: a code minted as the authorize endpoint would, then exchanged. */
  const oauthToken = async (dpop?: Record<string, string>, details?: unknown) => {
    const code = `code-${crypto.randomUUID()}${crypto.randomUUID()}`;
    await grants.saveCode({
      codeHash: await hashSecret(code),
      clientId: DEMO.client.id,
      userId: DEMO.user.id,
      grantId: crypto.randomUUID(),
      redirectUri: demo.redirectUri,
      scope: 'tickets:read',
      // RFC 9396: the details a consent granted, as the authorization endpoint keeps them.
      ...(details === undefined ? {} : { ext: { authorizationDetails: JSON.stringify(details) } }),
      authTime: Date.now(),
      expiresAt: Date.now() + 60_000,
    });
    const response = await demo.gatehouse.fetch(
      new Request(`${demo.issuer}/oauth2/v1/token`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          Authorization: `Basic ${btoa(`${DEMO.client.id}:${DEMO.client.secret}`)}`,
          ...dpop,
        },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: demo.redirectUri }),
      }),
    );
    expect(response.status).toBe(200);
    return ((await response.json()) as { access_token: string }).access_token;
  };
  const sessionCookie = async () => {
    const id = `session-${crypto.randomUUID()}${crypto.randomUUID()}`;
    const now = Date.now();
    await sessions.createSession({
      idHash: await hashSecret(id),
      userId: DEMO.user.id,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: now + 3_600_000,
    });
    return `gatehouse_session=${id}`;
  };
  const create = (headers: Record<string, string>, body: unknown = { title: 'Printer on fire' }) =>
    api(
      new Request(`${demo.issuer}/api/v1/tickets/create`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify(body),
      }),
    );
  return { demo, api, url, call, json, authApiToken, oauthToken, sessionCookie, create };
}

describe('demo tickets API', () => {
  it('lists 20 tickets of the caller by default, deterministically, for an Auth API token', async () => {
    const d = await demoWithApi();
    const auth = { Authorization: `Bearer ${await d.authApiToken()}` };
    const response = await d.json({}, auth);
    expect(response?.status).toBe(200);
    expect(response?.headers.get('cache-control')).toBe('no-store');
    const { tickets } = (await response!.json()) as { tickets: Record<string, unknown>[] };
    expect(tickets).toHaveLength(20);
    for (const ticket of tickets) {
      expect(ticket).toEqual({
        id: expect.stringMatching(/^TCK-[0-9a-f]{4}-\d{3}$/),
        title: expect.any(String),
        status: expect.stringMatching(/^(open|in_progress|resolved|closed)$/),
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        ownerSub: DEMO.user.id,
      });
    }
    expect(new Set(tickets.map((t) => t.id)).size).toBe(20);
    const again = (await (await d.json({}, auth))!.json()) as { tickets: unknown[] };
    expect(again.tickets).toEqual(tickets);
  });

  it('accepts a DPoP-bound token with a valid proof, and refuses it as Bearer (RFC 9449)', async () => {
    const d = await demoWithApi();
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk = await exportJWK(publicKey);
    const proof = async (htm: string, htu: string, claims: Record<string, string> = {}) =>
      new SignJWT({ htm, htu, jti: crypto.randomUUID(), ...claims })
        .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
        .setIssuedAt()
        .sign(privateKey);
    const token = await d.oauthToken({ DPoP: await proof('POST', `${d.demo.issuer}/oauth2/v1/token`) });
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token)));
    const ath = btoa(String.fromCharCode(...digest))
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '');
    const response = await d.json(
      { limit: 2 },
      { Authorization: `DPoP ${token}`, DPoP: await proof('POST', d.url, { ath }) },
    );
    expect(response?.status).toBe(200);
    expect(((await response!.json()) as { tickets: unknown[] }).tickets).toHaveLength(2);
    const asBearer = await d.json({ limit: 2 }, { Authorization: `Bearer ${token}` });
    expect(asBearer?.status).toBe(401);
    expect(asBearer?.headers.get('www-authenticate')).toMatch(/DPoP realm=.*error="invalid_token"/);
    const noProof = await d.json({ limit: 2 }, { Authorization: `DPoP ${token}` });
    expect(noProof?.status).toBe(401);
    expect(noProof?.headers.get('www-authenticate')).toMatch(/^DPoP .*error="invalid_dpop_proof"/);
    expect(await calculateJwkThumbprint(jwk)).toMatch(/^[\w-]{43}$/);
  });

  it('honours limit for an OAuth 2.0 token, returning at most limit tickets', async () => {
    const d = await demoWithApi();
    const auth = { Authorization: `Bearer ${await d.oauthToken()}` };
    for (const [limit, expected] of [
      [1, 1],
      [5, 5],
      [100, SAMPLE_TICKETS_PER_CALLER],
    ]) {
      const response = await d.json({ limit }, auth);
      expect(response?.status).toBe(200);
      expect(((await response!.json()) as { tickets: unknown[] }).tickets).toHaveLength(expected!);
    }
  });

  it('refuses every invalid limit and body with 400 invalid_request naming the problem', async () => {
    const d = await demoWithApi();
    const auth = { Authorization: `Bearer ${await d.authApiToken()}` };
    for (const limit of ['5', 1.5, 0, 101, -1, null, true, [5], { n: 5 }]) {
      const response = await d.json({ limit }, auth);
      expect({ limit, status: response?.status }).toEqual({ limit, status: 400 });
      const body = (await response!.json()) as { error: string; error_description: string };
      expect(body.error).toBe('invalid_request');
      expect(body.error_description).toContain("'limit'");
    }
    const bodies: [Record<string, string>, BodyInit, string][] = [
      [{ 'Content-Type': 'text/plain' }, '{"limit":5}', 'Content-Type'],
      [{}, new Blob(['{"limit":5}']), 'Content-Type'],
      [{ 'Content-Type': 'application/json' }, '{"limit":', 'not valid JSON'],
      [{ 'Content-Type': 'application/json' }, '', 'not valid JSON'],
      [{ 'Content-Type': 'application/json' }, '[1]', 'JSON object'],
      [{ 'Content-Type': 'application/json' }, 'null', 'JSON object'],
      [{ 'Content-Type': 'application/json' }, '"x"', 'JSON object'],
    ];
    for (const [headers, body, mentions] of bodies) {
      const response = await d.call({ headers: { ...auth, ...headers }, body });
      expect(response?.status).toBe(400);
      const answer = (await response!.json()) as { error: string; error_description: string };
      expect(answer).toEqual({
        error: 'invalid_request',
        error_description: expect.stringContaining(mentions),
      });
    }
    const huge = await d.call({
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: `{"pad":"${'x'.repeat(20_000)}"}`,
    });
    expect(huge?.status).toBe(413);
  });

  it('accepts the session from the instance origin and an env-allowed origin, with CORS for the latter', async () => {
    const d = await demoWithApi();
    const cookie = await d.sessionCookie();
    const own = await d.json({ limit: 2 }, { Cookie: cookie, Origin: d.demo.origin });
    expect(own?.status).toBe(200);
    const partner = await d.json({ limit: 2 }, { Cookie: cookie, Origin: PARTNER });
    expect(partner?.status).toBe(200);
    expect(partner?.headers.get('access-control-allow-origin')).toBe(PARTNER);
    expect(partner?.headers.get('access-control-allow-credentials')).toBe('true');
    expect(((await partner!.json()) as { tickets: unknown[] }).tickets).toHaveLength(2);
  });

  it('refuses the session from other origins and cookie-authenticated form posts', async () => {
    const d = await demoWithApi();
    const cookie = await d.sessionCookie();
    const foreign = await d.json({}, { Cookie: cookie, Origin: 'http://localhost:4101' });
    expect(foreign?.status).toBe(403);
    expect(foreign?.headers.get('access-control-allow-origin')).toBeNull();
    const form = await d.call({
      headers: { Cookie: cookie, Origin: d.demo.origin, 'Content-Type': 'text/plain' },
      body: '{"limit":5}',
    });
    expect(form?.status).toBe(403);
  });

  it('answers 401 with a Bearer challenge without credentials, and preflights from allowed origins', async () => {
    const d = await demoWithApi();
    const anonymous = await d.json({});
    expect(anonymous?.status).toBe(401);
    expect(anonymous?.headers.get('www-authenticate')).toBe(`Bearer realm="${d.demo.issuer}"`);
    const preflight = await d.api(
      new Request(d.url, {
        method: 'OPTIONS',
        headers: {
          Origin: PARTNER,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'content-type',
        },
      }),
    );
    expect(preflight?.status).toBe(204);
    expect(preflight?.headers.get('access-control-allow-origin')).toBe(PARTNER);
    expect(preflight?.headers.get('access-control-allow-methods')).toBe('POST');
  });

  it('enforces ticket_access details: read lists but cannot open a ticket, write opens one (RFC 9396)', async () => {
    const d = await demoWithApi();
    const bearer = async (details?: unknown) => ({
      Authorization: `Bearer ${await d.oauthToken(undefined, details)}`,
    });
    const readOnly = await bearer([{ type: 'ticket_access', actions: ['read'] }]);
    expect((await d.json({ limit: 1 }, readOnly))?.status).toBe(200);
    const refused = await d.create(readOnly);
    expect(refused?.status).toBe(403);
    expect(((await refused!.json()) as { error: string }).error).toBe('insufficient_scope');
    const readWrite = await bearer([{ type: 'ticket_access', actions: ['read', 'write'] }]);
    const created = await d.create(readWrite);
    expect(created?.status).toBe(201);
    expect(((await created!.json()) as { ticket: unknown }).ticket).toMatchObject({
      title: 'Printer on fire',
      status: 'open',
      ownerSub: DEMO.user.id,
    });
    // Write only: opens tickets, lists none. A token of scopes alone lists (as before), never writes.
    const writeOnly = await bearer([{ type: 'ticket_access', actions: ['write'] }]);
    expect((await d.json({ limit: 1 }, writeOnly))?.status).toBe(403);
    expect((await d.create(writeOnly))?.status).toBe(201);
    const scopesOnly = await bearer();
    expect((await d.json({ limit: 1 }, scopesOnly))?.status).toBe(200);
    expect((await d.create(scopesOnly))?.status).toBe(403);
    // The user's own session opens tickets; a bad title is a 400.
    const session = { Cookie: await d.sessionCookie(), Origin: d.demo.origin };
    expect((await d.create(session))?.status).toBe(201);
    expect((await d.create(readWrite, { title: '' }))?.status).toBe(400);
  });

  it('leaves every other request to the host', async () => {
    const d = await demoWithApi();
    expect(await d.api(new Request(`${d.demo.issuer}/api/v1/other`, { method: 'POST' }))).toBeUndefined();
    expect(await d.api(new Request(`${d.demo.origin}/api/v1/tickets`, { method: 'POST' }))).toBeUndefined();
  });
});
