import { describe, expect, it } from 'vitest';
import { authorizeUrl, FakeBrowser, ORIGIN, signIn } from '../../test/browser-flow';
import { ISSUER, issueTokens, testInstance } from '../../test/fixtures';

const URL_ = `${ISSUER}/oauth2/v1/userinfo`;

describe('userinfo', () => {
  it('answers sub and the claims of the granted scopes for a bearer access token, never cached', async () => {
    const t = await testInstance();
    const { access_token } = await issueTokens(t, 'openid profile');
    const response = await t.gatehouse.fetch(
      new Request(URL_, { headers: { Authorization: `Bearer ${access_token}` } }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual({ sub: 'user-1', name: 'Demo User' });
  });

  it('answers only sub to a bearer token without a claim-bearing scope (Core section 5.4)', async () => {
    const t = await testInstance();
    const { access_token } = await issueTokens(t, 'openid read write');
    for (const method of ['GET', 'POST']) {
      const response = await t.gatehouse.fetch(
        new Request(URL_, { method, headers: { Authorization: `Bearer ${access_token}` } }),
      );
      expect(await response.json()).toEqual({ sub: 'user-1' });
    }
  });

  it('refuses a bearer token not granted openid: 403 insufficient_scope naming it (Core section 5.3)', async () => {
    const t = await testInstance();
    const { access_token } = await issueTokens(t, 'profile read');
    for (const method of ['GET', 'POST']) {
      const response = await t.gatehouse.fetch(
        new Request(URL_, { method, headers: { Authorization: `Bearer ${access_token}` } }),
      );
      expect(response.status).toBe(403);
      expect(response.headers.get('www-authenticate')).toMatch(
        /^Bearer realm="[^"]+", error="insufficient_scope", .*scope="openid"/,
      );
      expect(((await response.json()) as { error: string }).error).toBe('insufficient_scope');
    }
  });

  it('answers sub for an active session cookie with Accept: application/json', async () => {
    const t = await testInstance();
    const browser = new FakeBrowser(t.gatehouse);
    await signIn(browser, authorizeUrl());
    const response = await browser.fetch(URL_, { headers: { Accept: 'application/json', Origin: ORIGIN } });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(((await response.json()) as { sub: string }).sub).toBe('user-1');
  });

  it('answers 401 with a Bearer challenge without credentials', async () => {
    const t = await testInstance();
    const response = await t.gatehouse.fetch(new Request(URL_, { headers: { Accept: 'application/json' } }));
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(`Bearer realm="${ISSUER}"`);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('answers 401 invalid_token for a bad token', async () => {
    const t = await testInstance();
    const { access_token } = await issueTokens(t);
    const tampered = `${access_token.slice(0, -4)}AAAA`;
    const response = await t.gatehouse.fetch(
      new Request(URL_, { headers: { Authorization: `Bearer ${tampered}` } }),
    );
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="[^"]+", error="invalid_token"/);
  });

  it('answers 401 for an unknown or ended session cookie', async () => {
    const t = await testInstance();
    const response = await t.gatehouse.fetch(
      new Request(URL_, {
        headers: {
          Accept: 'application/json',
          Cookie: `gatehouse_session=${'a'.repeat(43)}`,
          Origin: ORIGIN,
        },
      }),
    );
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
  });

  it('ignores the session cookie on a request from a foreign origin', async () => {
    const t = await testInstance();
    const browser = new FakeBrowser(t.gatehouse);
    await signIn(browser, authorizeUrl());
    const response = await browser.fetch(URL_, {
      headers: { Accept: 'application/json', Origin: 'https://evil.example' },
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('lets an allowed origin read it with credentials (CORS)', async () => {
    const t = await testInstance({ cors: { allowedOrigins: ['http://localhost:5173'] } });
    const browser = new FakeBrowser(t.gatehouse);
    await signIn(browser, authorizeUrl());
    const response = await browser.fetch(URL_, {
      headers: { Accept: 'application/json', Origin: 'http://localhost:5173' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(response.headers.get('access-control-allow-credentials')).toBe('true');
  });
});
