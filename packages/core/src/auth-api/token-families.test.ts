import { describe, expect, it } from 'vitest';
import { authApiToken, basic, post, testInstance } from '../../test/fixtures';

// Auth API tokens are access tokens of their own family: no client owns them and they are not
// refresh tokens, so the OAuth 2.0 endpoints must not accept them as a client's.

describe('Auth API tokens at the OAuth 2.0 endpoints', () => {
  it('cannot be exchanged as a refresh token', async () => {
    const t = await testInstance();
    const token = await authApiToken(t);
    const response = await t.gatehouse.fetch(
      post(
        '/oauth2/v1/token',
        { grant_type: 'refresh_token', refresh_token: token },
        { Authorization: basic('demo-client', 'demo-secret') },
      ),
    );
    expect(response.status).toBe(400);
    expect((await response.json()).error).toBe('invalid_grant');
  });

  it('are reported inactive by OAuth 2.0 introspection, which only shows clients their own tokens', async () => {
    const t = await testInstance();
    const token = await authApiToken(t);
    const response = await t.gatehouse.fetch(
      post('/oauth2/v1/introspect', { token }, { Authorization: basic('demo-client', 'demo-secret') }),
    );
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('{"active":false}');
  });

  it('are not revoked by a client through OAuth 2.0 revocation', async () => {
    const t = await testInstance();
    const token = await authApiToken(t);
    const response = await t.gatehouse.fetch(
      post('/oauth2/v1/revoke', { token }, { Authorization: basic('demo-client', 'demo-secret') }),
    );
    // Not issued to this client: refused (RFC 7009 §2.1), and it stays active.
    expect(response.status).toBe(400);
    expect((await response.json()).error).toBe('invalid_grant');
    const introspection = await t.gatehouse.fetch(
      new Request(`${t.gatehouse.issuer}/auth/v1/token/introspect`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}` },
      }),
    );
    expect((await introspection.json()).active).toBe(true);
  });
});
