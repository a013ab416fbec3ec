import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  authApiToken,
  basic,
  bearerPost,
  ISSUER,
  issueTokens,
  post,
  testInstance,
} from '../../test/fixtures';

const PATH = '/auth/v1/token/introspect';

describe('POST /auth/v1/token/introspect', () => {
  it('lets a bearer introspect itself with no body, in the RFC 7662 shape, never cached', async () => {
    const t = await testInstance();
    const token = await authApiToken(t);
    const response = await t.gatehouse.fetch(bearerPost(PATH, token));
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const claims = decodeJwt(token);
    expect(await response.json()).toEqual({
      active: true,
      token_type: 'Bearer',
      scope: '',
      sub: 'user-1',
      aud: `${ISSUER}/api/v1`,
      iss: ISSUER,
      exp: claims.exp,
      iat: claims.iat,
      jti: claims.jti,
      token_family: 'auth_api',
    });
  });

  it('answers exactly {"active":false}, with 200, for a revoked token', async () => {
    const t = await testInstance();
    const token = await authApiToken(t);
    await t.gatehouse.fetch(bearerPost('/auth/v1/token/revoke', token));
    const response = await t.gatehouse.fetch(bearerPost(PATH, token));
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('{"active":false}');
  });

  it('answers exactly {"active":false}, with 200, for an expired token', async () => {
    const t = await testInstance();
    const token = await authApiToken(t);
    t.clock.advance(86_400 - 10);
    expect((await (await t.gatehouse.fetch(bearerPost(PATH, token))).json()).active).toBe(true);
    t.clock.advance(10 + 5 + 1); // past exp and the 5 s clock tolerance
    const response = await t.gatehouse.fetch(bearerPost(PATH, token));
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('{"active":false}');
  });

  it.each([
    ['a token that is not a JWT', 'not-a-jwt'],
    ['a token with a forged signature', 'forge'],
  ])('answers {"active":false} for %s', async (_, kind) => {
    const t = await testInstance();
    let token = kind;
    if (kind === 'forge') {
      const [header, payload] = (await authApiToken(t)).split('.');
      token = `${header}.${payload}.${'A'.repeat(86)}`;
    }
    const response = await t.gatehouse.fetch(bearerPost(PATH, token));
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('{"active":false}');
  });

  it('lets an OAuth 2.0 access token introspect itself as well', async () => {
    const t = await testInstance();
    const { access_token } = await issueTokens(t);
    const body = await (await t.gatehouse.fetch(bearerPost(PATH, access_token))).json();
    expect(body).toMatchObject({
      active: true,
      client_id: 'demo-client',
      token_family: 'oauth2',
      scope: 'read write',
    });
  });

  it('refuses a body next to a bearer token with 400 invalid_request', async () => {
    const t = await testInstance();
    const token = await authApiToken(t);
    const response = await t.gatehouse.fetch(post(PATH, { token }, { Authorization: `Bearer ${token}` }));
    expect(response.status).toBe(400);
    expect((await response.json()).error).toBe('invalid_request');
  });

  it('lets a confidential client introspect an Auth API token named in the form', async () => {
    const t = await testInstance();
    const token = await authApiToken(t);
    const response = await t.gatehouse.fetch(
      post(
        PATH,
        { token, token_type_hint: 'access_token' },
        { Authorization: basic('other-client', 'other-secret') },
      ),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toMatchObject({ active: true, sub: 'user-1', token_family: 'auth_api' });
  });

  it('reports OAuth 2.0 tokens inactive to clients, even their own: those are introspected at /oauth2/v1/introspect', async () => {
    const t = await testInstance();
    const { access_token } = await issueTokens(t);
    const response = await t.gatehouse.fetch(
      post(PATH, { token: access_token }, { Authorization: basic('demo-client', 'demo-secret') }),
    );
    expect(await response.text()).toBe('{"active":false}');
  });

  it('reports a revoked token inactive to clients', async () => {
    const t = await testInstance();
    const token = await authApiToken(t);
    await t.gatehouse.fetch(bearerPost('/auth/v1/token/revoke', token));
    const response = await t.gatehouse.fetch(
      post(PATH, { token }, { Authorization: basic('demo-client', 'demo-secret') }),
    );
    expect(await response.text()).toBe('{"active":false}');
  });

  it('refuses a client with a wrong secret: 401 invalid_client with a Basic challenge', async () => {
    const t = await testInstance();
    const token = await authApiToken(t);
    const response = await t.gatehouse.fetch(
      post(PATH, { token }, { Authorization: basic('demo-client', 'wrong') }),
    );
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(`Basic realm="${ISSUER}", charset="UTF-8"`);
    expect((await response.json()).error).toBe('invalid_client');
  });

  it('refuses a client that forgets the token field with 400 invalid_request', async () => {
    const t = await testInstance();
    const response = await t.gatehouse.fetch(
      post(PATH, {}, { Authorization: basic('demo-client', 'demo-secret') }),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringMatching(/token/),
    });
  });

  it('refuses a repeated token field with 400 invalid_request', async () => {
    const t = await testInstance();
    const response = await t.gatehouse.fetch(
      post(PATH, 'token=a&token=b', { Authorization: basic('demo-client', 'demo-secret') }),
    );
    expect(response.status).toBe(400);
  });

  it.each([
    ['no credentials at all', {}],
    ['a public client naming itself in the body', { client_id: 'demo-spa' }],
  ])('answers %s with 401 offering both Bearer and Basic', async (_, extra) => {
    const t = await testInstance();
    const token = await authApiToken(t);
    const response = await t.gatehouse.fetch(post(PATH, { token, ...extra }));
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer realm="${ISSUER}", Basic realm="${ISSUER}", charset="UTF-8"`,
    );
    expect((await response.json()).error).toBe('invalid_request');
  });

  it('answers a malformed Bearer header with 400 invalid_request', async () => {
    const t = await testInstance();
    const response = await t.gatehouse.fetch(
      new Request(ISSUER + PATH, { method: 'POST', headers: { Authorization: 'Bearer a b' } }),
    );
    expect(response.status).toBe(400);
    expect((await response.json()).error).toBe('invalid_request');
  });
});

describe('POST /auth/v1/token/introspect, inactive answers explained (debug log)', () => {
  it('writes why for a revoked bearer and for a client asking about an OAuth 2.0 token', async () => {
    const lines: string[] = [];
    const t = await testInstance({
      debug: true,
      logger: { warn() {}, error() {}, debug: (line: string) => lines.push(line) },
    });
    const token = await authApiToken(t);
    await t.gatehouse.fetch(bearerPost('/auth/v1/token/revoke', token));
    expect(await (await t.gatehouse.fetch(bearerPost(PATH, token))).text()).toBe('{"active":false}');
    const { access_token } = await issueTokens(t);
    const asked = await t.gatehouse.fetch(
      post(PATH, { token: access_token }, { Authorization: basic('demo-client', 'demo-secret') }),
    );
    expect(await asked.text()).toBe('{"active":false}');
    expect(lines).toEqual([
      'gatehouse: refused POST /demo/auth/v1/token/introspect: 200 {"active":false}: asked about a revoked access token (the token, its grant or its user)',
      'gatehouse: refused POST /demo/auth/v1/token/introspect: 200 {"active":false}: a client asked about an OAuth 2.0 access token: clients introspect those at /oauth2/v1/introspect',
    ]);
  });
});
