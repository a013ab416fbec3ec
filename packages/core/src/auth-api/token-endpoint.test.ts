import { type GatehouseEvent, memoryUserStore, type UserStore } from '@gatehousejs/core';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { ISSUER, testHasher, testInstance, userBasic } from '../../test/fixtures';

const TOKEN_URL = `${ISSUER}/auth/v1/token`;
const CHALLENGE = `Basic realm="${ISSUER}", charset="UTF-8"`;

function tokenRequest(headers: Record<string, string> = {}, init: RequestInit = {}): Request {
  return new Request(TOKEN_URL, { method: 'POST', headers, ...init });
}

describe('POST /auth/v1/token', () => {
  it('exchanges the demo username and password for a no-store Bearer token of the auth_api family', async () => {
    const t = await testInstance();
    const response = await t.gatehouse.fetch(
      tokenRequest({ Authorization: userBasic('demo', 'demo-password') }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await response.json();
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
    expect(body.token_type).toBe('Bearer');
    expect(body.expires_in).toBe(86_400);

    expect(decodeProtectedHeader(body.access_token).typ).toBe('at+jwt');
    const claims = decodeJwt(body.access_token);
    expect(claims).toMatchObject({
      iss: ISSUER,
      aud: `${ISSUER}/api/v1`,
      sub: 'user-1',
      token_family: 'auth_api',
      scope: '',
    });
    expect(claims.client_id).toBeUndefined();
    expect(claims.gid).toBeUndefined();
    expect(claims.exp! - claims.iat!).toBe(86_400);
    expect(claims.iat).toBe(Math.floor(t.clock.now() / 1000));
  });

  it('issues tokens with the configured lifetime', async () => {
    const t = await testInstance({ authApi: { tokenTtl: 600 } });
    const response = await t.gatehouse.fetch(
      tokenRequest({ Authorization: userBasic('demo', 'demo-password') }),
    );
    const body = await response.json();
    expect(body.expires_in).toBe(600);
    const claims = decodeJwt(body.access_token);
    expect(claims.exp! - claims.iat!).toBe(600);
  });

  it('issues a distinct token on every exchange', async () => {
    const t = await testInstance();
    const first = await (
      await t.gatehouse.fetch(tokenRequest({ Authorization: userBasic('demo', 'demo-password') }))
    ).json();
    const second = await (
      await t.gatehouse.fetch(tokenRequest({ Authorization: userBasic('demo', 'demo-password') }))
    ).json();
    expect(decodeJwt(first.access_token).jti).not.toBe(decodeJwt(second.access_token).jti);
  });

  it('decodes the credentials as UTF-8 and does not form-decode them', async () => {
    const users = memoryUserStore(
      [
        {
          id: 'user-2',
          username: 'zoë+1',
          passwordHash: await testHasher.hash('pässwörd 🔑:%41+'),
          claims: {},
        },
      ],
      { hasher: testHasher },
    );
    const t = await testInstance({ users });
    const ok = await t.gatehouse.fetch(
      tokenRequest({ Authorization: userBasic('zoë+1', 'pässwörd 🔑:%41+') }),
    );
    expect(ok.status).toBe(200);
    expect(decodeJwt((await ok.json()).access_token).sub).toBe('user-2');
    // Form-decoding would have turned "+" into a space and "%41" into "A".
    const formDecoded = await t.gatehouse.fetch(
      tokenRequest({ Authorization: userBasic('zoë 1', 'pässwörd 🔑:A ') }),
    );
    expect(formDecoded.status).toBe(401);
  });

  it('answers an unknown user exactly like a wrong password: 401 invalid_grant with a Basic challenge', async () => {
    const t = await testInstance();
    const wrong = await t.gatehouse.fetch(
      tokenRequest({ Authorization: userBasic('demo', 'not-the-password') }),
    );
    const unknown = await t.gatehouse.fetch(
      tokenRequest({ Authorization: userBasic('nobody', 'not-the-password') }),
    );
    for (const response of [wrong, unknown]) {
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(CHALLENGE);
      expect(response.headers.get('cache-control')).toBe('no-store');
    }
    const [a, b] = [await wrong.text(), await unknown.text()];
    expect(a).toBe(b);
    expect(JSON.parse(a)).toEqual({
      error: 'invalid_grant',
      error_description: 'The username or password is incorrect.',
    });
    expect([...wrong.headers].sort()).toEqual([...unknown.headers].sort());
  });

  it('verifies unknown users against the user store too, so they cost the same work', async () => {
    const calls: string[] = [];
    const base = memoryUserStore([], { hasher: testHasher });
    const users: UserStore = {
      verifyPassword: (username, password) => {
        calls.push(username);
        return base.verifyPassword(username, password);
      },
      findUser: (id) => base.findUser(id),
    };
    const t = await testInstance({ users });
    await t.gatehouse.fetch(tokenRequest({ Authorization: userBasic('ghost', 'x') }));
    expect(calls).toEqual(['ghost']);
  });

  it.each([
    ['no Authorization header', {}, /HTTP Basic/],
    ['another scheme', { Authorization: 'Bearer abc' }, /HTTP Basic/],
    ['a Basic header without credentials', { Authorization: 'Basic' }, /malformed/],
    ['credentials that are not base64', { Authorization: 'Basic ***' }, /malformed/],
    ['credentials that are not UTF-8', { Authorization: `Basic ${btoa('\xff\xfe:\xff')}` }, /UTF-8/],
    ['credentials without a colon', { Authorization: `Basic ${btoa('demo')}` }, /':'/],
    ['an empty username', { Authorization: `Basic ${btoa(':demo-password')}` }, /username is empty/],
  ])(
    'answers %s with 401 invalid_request, a Basic challenge and a clear description',
    async (_, headers, description) => {
      const t = await testInstance();
      const response = await t.gatehouse.fetch(tokenRequest(headers as Record<string, string>));
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(CHALLENGE);
      const body = await response.json();
      expect(body.error).toBe('invalid_request');
      expect(body.error_description).toMatch(description);
    },
  );

  it('refuses a non-empty body, such as credentials posted as form fields, with 400', async () => {
    const t = await testInstance();
    const response = await t.gatehouse.fetch(
      tokenRequest(
        {
          Authorization: userBasic('demo', 'demo-password'),
          'Content-Type': 'application/x-www-form-urlencoded',
        },
        { body: 'username=demo&password=demo-password' },
      ),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringMatching(/no body/),
    });
  });

  it('accepts an empty body whatever its content type', async () => {
    const t = await testInstance();
    const response = await t.gatehouse.fetch(
      tokenRequest(
        { Authorization: userBasic('demo', 'demo-password'), 'Content-Type': 'application/json' },
        { body: '' },
      ),
    );
    expect(response.status).toBe(200);
  });

  it('refuses a body over maxBodyBytes with 413', async () => {
    const t = await testInstance({ maxBodyBytes: 16 });
    const response = await t.gatehouse.fetch(
      tokenRequest({ Authorization: userBasic('demo', 'demo-password') }, { body: 'x'.repeat(17) }),
    );
    expect(response.status).toBe(413);
  });

  it('answers other methods with 405 and Allow: POST', async () => {
    const t = await testInstance();
    const response = await t.gatehouse.fetch(
      new Request(TOKEN_URL, { headers: { Authorization: userBasic('demo', 'demo-password') } }),
    );
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });

  it('does not exist when the Auth API is disabled', async () => {
    const t = await testInstance({ authApi: { enabled: false } });
    for (const path of ['/auth/v1/token', '/auth/v1/token/introspect', '/auth/v1/token/revoke']) {
      const response = await t.gatehouse.fetch(
        new Request(ISSUER + path, {
          method: 'POST',
          headers: { Authorization: userBasic('demo', 'demo-password') },
        }),
      );
      expect(response.status).toBe(404);
      expect(t.gatehouse.handles(ISSUER + path)).toBe(false);
    }
  });

  it('reports logins to onEvent without the password', async () => {
    const events: GatehouseEvent[] = [];
    const t = await testInstance({ onEvent: (event) => events.push(event) });
    await t.gatehouse.fetch(tokenRequest({ Authorization: userBasic('demo', 'wrong-password') }));
    await t.gatehouse.fetch(tokenRequest({ Authorization: userBasic('demo', 'demo-password') }));
    expect(events).toEqual([
      { type: 'login.failed', username: 'demo', via: 'auth-api' },
      { type: 'login.succeeded', userId: 'user-1', via: 'auth-api' },
      {
        type: 'token.issued',
        subject: { kind: 'user', userId: 'user-1' },
        userId: 'user-1',
        grantType: 'auth_api',
      },
    ]);
    expect(JSON.stringify(events)).not.toMatch(/password/);
  });

  it('answers 503, not 500, when the host user store fails', async () => {
    const users: UserStore = {
      verifyPassword: async () => {
        throw new Error('database down');
      },
      findUser: async () => null,
    };
    const t = await testInstance({ users });
    const response = await t.gatehouse.fetch(
      tokenRequest({ Authorization: userBasic('demo', 'demo-password') }),
    );
    expect(response.status).toBe(503);
    expect((await response.json()).error).toBe('temporarily_unavailable');
  });
});
