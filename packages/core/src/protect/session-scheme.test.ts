import type { AuthenticateOptions } from '@gatehousejs/core/protect';
import { describe, expect, it } from 'vitest';
import { ISSUER } from '../../test/fixtures';
import { ALLOWED, API, apiPost, CLIENT_ORIGIN, ORIGIN, protectInstance } from '../../test/protect-fixtures';

const BOTH: AuthenticateOptions = { schemes: ['bearer', 'session'] };
const SESSION: AuthenticateOptions = { schemes: ['session'] };

async function status(result: { ok: boolean; response?: Response }): Promise<number> {
  return result.ok ? 200 : result.response!.status;
}

describe('session scheme', () => {
  it('accepts the cookie on a JSON POST from the instance origin; sessions pass scope checks', async () => {
    const t = await protectInstance();
    const cookie = await t.sessionCookie();
    const result = await t.gatehouse.authenticate(apiPost({ Cookie: cookie, Origin: ORIGIN }), {
      ...BOTH,
      scope: 'admin',
    });
    expect(result).toEqual({
      ok: true,
      caller: {
        sub: 'user-1',
        subject: { kind: 'user', userId: 'user-1' },
        scheme: 'session',
        scope: [],
        expiresAt: t.clock.now() / 1000 + 1800,
      },
    });
  });

  it('accepts the cookie from an origin in cors.allowedOrigins and from a client-registered origin', async () => {
    const t = await protectInstance();
    const cookie = await t.sessionCookie();
    for (const origin of [ALLOWED, CLIENT_ORIGIN]) {
      expect(
        await status(await t.gatehouse.authenticate(apiPost({ Cookie: cookie, Origin: origin }), BOTH)),
      ).toBe(200);
    }
  });

  it('refuses a cookie-authenticated POST from look-alike, null and unlisted origins with 403', async () => {
    const t = await protectInstance();
    const cookie = await t.sessionCookie();
    const origins = [
      'https://allowed.example.evil.com',
      'https://evilallowed.example',
      'https://allowed.example:8443',
      'http://allowed.example',
      'https://allowed.example/',
      'null',
      'https://unlisted.example',
      'http://localhost:3001',
    ];
    for (const origin of origins) {
      const result = await t.gatehouse.authenticate(apiPost({ Cookie: cookie, Origin: origin }), BOTH);
      expect({ origin, status: await status(result) }).toEqual({ origin, status: 403 });
      expect(!result.ok && (await result.response.json()).error).toBe('forbidden');
    }
  });

  it('ignores the cookie on a GET from a foreign origin (401, not the user)', async () => {
    const t = await protectInstance();
    const cookie = await t.sessionCookie();
    const request = new Request(API, { headers: { Cookie: cookie, Origin: 'https://evil.example' } });
    const result = await t.gatehouse.authenticate(request, BOTH);
    expect(await status(result)).toBe(401);
    const crossSite = new Request(API, { headers: { Cookie: cookie, 'Sec-Fetch-Site': 'cross-site' } });
    expect(await status(await t.gatehouse.authenticate(crossSite, BOTH))).toBe(401);
  });

  it('uses Sec-Fetch-Site when there is no usable Origin', async () => {
    const t = await protectInstance();
    const cookie = await t.sessionCookie();
    const cases: [Record<string, string>, string, number][] = [
      [{ 'Sec-Fetch-Site': 'same-origin' }, 'POST', 200],
      [{ 'Sec-Fetch-Site': 'same-origin', Origin: 'null' }, 'POST', 200],
      [{ 'Sec-Fetch-Site': 'same-site' }, 'POST', 403],
      [{ 'Sec-Fetch-Site': 'none' }, 'POST', 403],
      [{}, 'POST', 403],
      [{ 'Sec-Fetch-Site': 'none' }, 'GET', 200],
      [{}, 'GET', 200],
      [{ 'Sec-Fetch-Site': 'same-site' }, 'GET', 401],
    ];
    for (const [headers, method, expected] of cases) {
      const request =
        method === 'GET'
          ? new Request(API, { headers: { Cookie: cookie, ...headers } })
          : apiPost({ Cookie: cookie, ...headers });
      expect({
        headers,
        method,
        status: await status(await t.gatehouse.authenticate(request, BOTH)),
      }).toEqual({
        headers,
        method,
        status: expected,
      });
    }
  });

  it('refuses cookie-authenticated unsafe requests with a CORS-safelisted body type, even same-origin', async () => {
    const t = await protectInstance();
    const cookie = await t.sessionCookie();
    for (const type of [
      'text/plain',
      'text/plain;charset=UTF-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      const request = new Request(API, {
        method: 'POST',
        headers: { Cookie: cookie, Origin: ORIGIN, 'Content-Type': type },
        body: 'x',
      });
      expect({ type, status: await status(await t.gatehouse.authenticate(request, BOTH)) }).toEqual({
        type,
        status: 403,
      });
    }
    const untyped = new Request(API, {
      method: 'PUT',
      headers: { Cookie: cookie, Origin: ORIGIN },
      body: new Blob(['{}']),
    });
    expect(untyped.headers.get('content-type')).toBeNull();
    expect(await status(await t.gatehouse.authenticate(untyped, BOTH))).toBe(403);
    // No body at all: nothing to forge, so a DELETE is fine.
    const bodiless = new Request(API, { method: 'DELETE', headers: { Cookie: cookie, Origin: ORIGIN } });
    expect(await status(await t.gatehouse.authenticate(bodiless, BOTH))).toBe(200);
  });

  it('lets the bearer token decide when both a token and a cookie are sent', async () => {
    const t = await protectInstance();
    const otherUser = await t.sessionCookie('user-2');
    const token = await t.oauthToken();
    const both = await t.gatehouse.authenticate(
      apiPost({ Cookie: otherUser, Origin: ORIGIN, Authorization: `Bearer ${token}` }),
      BOTH,
    );
    expect(both.ok && both.caller).toMatchObject({ sub: 'user-1', scheme: 'bearer' });
    const badToken = await t.gatehouse.authenticate(
      apiPost({ Cookie: otherUser, Origin: ORIGIN, Authorization: 'Bearer not-a-token' }),
      BOTH,
    );
    expect(await status(badToken)).toBe(401);
    expect(!badToken.ok && badToken.response.headers.get('www-authenticate')).toContain(
      'error="invalid_token"',
    );
    // A cross-site cookie next to a valid token does not matter either: the token decides.
    const crossSite = await t.gatehouse.authenticate(
      apiPost({ Cookie: otherUser, Origin: 'https://evil.example', Authorization: `Bearer ${token}` }),
      BOTH,
    );
    expect(crossSite.ok).toBe(true);
  });

  it('answers 401 for a cookie of an ended, unknown or orphaned session', async () => {
    const t = await protectInstance();
    const cookie = await t.sessionCookie();
    t.clock.advance(1801);
    const result = await t.gatehouse.authenticate(apiPost({ Cookie: cookie, Origin: ORIGIN }), BOTH);
    expect(await status(result)).toBe(401);
    expect(!result.ok && result.response.headers.get('www-authenticate')).toBe(`Bearer realm="${ISSUER}"`);
    const unknown = await t.gatehouse.authenticate(
      apiPost({ Cookie: 'gatehouse_session=nope', Origin: ORIGIN }),
      BOTH,
    );
    expect(await status(unknown)).toBe(401);
    // A session whose user no longer exists has ended too.
    const orphan = await t.gatehouse.authenticate(
      apiPost({ Cookie: await t.sessionCookie('deleted-user'), Origin: ORIGIN }),
      BOTH,
    );
    expect(await status(orphan)).toBe(401);
  });

  it('ignores cookies on bearer-only operations and bearer tokens on session-only ones', async () => {
    const t = await protectInstance();
    const cookie = await t.sessionCookie();
    const token = await t.oauthToken();
    const cookieOnly = await t.gatehouse.authenticate(apiPost({ Cookie: cookie, Origin: ORIGIN }), {
      schemes: ['bearer'],
    });
    expect(await status(cookieOnly)).toBe(401);
    const tokenOnly = await t.gatehouse.authenticate(apiPost({ Authorization: `Bearer ${token}` }), SESSION);
    expect(await status(tokenOnly)).toBe(401);
    expect(!tokenOnly.ok && tokenOnly.response.headers.get('www-authenticate')).toBe(
      `Session realm="${ISSUER}"`,
    );
    const session = await t.gatehouse.authenticate(
      apiPost({ Cookie: cookie, Origin: ORIGIN, Authorization: `Bearer ${token}` }),
      SESSION,
    );
    expect(session.ok && session.caller.scheme).toBe('session');
  });
});
