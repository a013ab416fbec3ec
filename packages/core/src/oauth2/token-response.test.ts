import { describe, expect, it } from 'vitest';
import { type Answer, isReply } from '../http/reply.js';
import { randomSecret } from '../tokens/secrets.js';
import { tokenResponse } from './token-response.js';

/** The body text of a reply. */
function bodyOf(answer: Answer): string {
  if (!isReply(answer) || answer.body === null) throw new Error('expected a reply with a body');
  return answer.body;
}

const jws = 'eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCJ9.eyJzdWIiOiJ1In0.c2lnbmF0dXJlLV8';

describe('tokenResponse', () => {
  it('is the JSON of RFC 6749 §5.1, members in order, optional ones only when issued', () => {
    const refreshToken = randomSecret();
    const full = tokenResponse({
      accessToken: jws,
      tokenType: 'DPoP',
      expiresIn: 300,
      refreshToken,
      scope: 'openid tickets:read',
      idToken: jws,
    });
    const bare = tokenResponse({ accessToken: jws, expiresIn: 60, scope: '' });
    expect(bodyOf(full)).toBe(
      JSON.stringify({
        access_token: jws,
        token_type: 'DPoP',
        expires_in: 300,
        refresh_token: refreshToken,
        scope: 'openid tickets:read',
        id_token: jws,
      }),
    );
    expect(bodyOf(bare)).toBe(
      JSON.stringify({ access_token: jws, token_type: 'Bearer', expires_in: 60, scope: '' }),
    );
  });

  it('escapes a scope that needs it (a stored record is not a request)', () => {
    const reply = tokenResponse({ accessToken: jws, expiresIn: 60, scope: 'a"b\\c\u0001' });
    expect(JSON.parse(bodyOf(reply)).scope).toBe('a"b\\c\u0001');
  });

  it('is never cached, and says it is JSON (RFC 6749 §5.1)', () => {
    const reply = tokenResponse({ accessToken: jws, expiresIn: 60, scope: 'x' });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('cache-control')).toBe('no-store');
    expect(reply.headers.get('pragma')).toBe('no-cache');
    expect(reply.headers.get('content-type')).toBe('application/json;charset=UTF-8');
  });
});
