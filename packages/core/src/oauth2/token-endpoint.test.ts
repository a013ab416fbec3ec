import * as jose from 'jose';
import { describe, expect, it } from 'vitest';
import {
  basic,
  ISSUER,
  issueTokens,
  mintCode,
  PKCE_VERIFIER,
  post,
  REDIRECT_URI,
  testInstance,
  testKey,
} from '../../test/fixtures';

const DEMO_BASIC = { Authorization: basic('demo-client', 'demo-secret') };

function exchange(
  code: string,
  extra: Record<string, string> = {},
  headers: Record<string, string> = DEMO_BASIC,
) {
  return post(
    '/oauth2/v1/token',
    {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: PKCE_VERIFIER,
      ...extra,
    },
    headers,
  );
}

async function expectError(response: Response, status: number, error: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await response.json()) as { error: string; error_description: string };
  expect(body.error).toBe(error);
  expect(typeof body.error_description).toBe('string');
  return body;
}

describe('authorization_code grant', () => {
  it('returns an RFC 6749 §5.1 token set with no-store headers', async () => {
    const t = await testInstance();
    const response = await t.gatehouse.fetch(exchange(await mintCode(t)));
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('pragma')).toBe('no-cache');
    const body = await response.json();
    expect(body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      scope: 'read write',
    });
  });

  it('issues an RFC 9068 JWT access token verifiable with the published JWKS', async () => {
    const t = await testInstance();
    const { access_token } = await issueTokens(t);
    const jwks = await (await t.gatehouse.fetch(new Request(`${ISSUER}/oauth2/v1/keys`))).json();
    const { payload, protectedHeader } = await jose.jwtVerify(access_token, jose.createLocalJWKSet(jwks), {
      issuer: ISSUER,
      audience: `${ISSUER}/api/v1`,
      typ: 'at+jwt',
      currentDate: new Date(t.clock.now()),
    });
    expect(protectedHeader).toMatchObject({ alg: 'ES256', typ: 'at+jwt', kid: (await testKey()).kid });
    expect(payload).toMatchObject({
      sub: 'user-1',
      client_id: 'demo-client',
      scope: 'read write',
      token_family: 'oauth2',
    });
    expect(payload.exp! - payload.iat!).toBe(3600);
    expect(payload.jti).toEqual(expect.any(String));
    expect(jwks.keys[0].d).toBeUndefined();
  });

  it('refuses a second redemption of a code and revokes what the first issued (RFC 6749 §4.1.2)', async () => {
    const t = await testInstance();
    const code = await mintCode(t);
    const first = await (await t.gatehouse.fetch(exchange(code))).json();
    await expectError(await t.gatehouse.fetch(exchange(code)), 400, 'invalid_grant');
    const refresh = await t.gatehouse.fetch(
      post(
        '/oauth2/v1/token',
        { grant_type: 'refresh_token', refresh_token: first.refresh_token },
        DEMO_BASIC,
      ),
    );
    await expectError(refresh, 400, 'invalid_grant');
    const introspection = await t.gatehouse.fetch(
      post('/oauth2/v1/introspect', { token: first.access_token }, DEMO_BASIC),
    );
    expect(await introspection.json()).toEqual({ active: false });
  });

  it('still revokes the grant when the replay comes after the code lifetime (RFC 6749 §4.1.2)', async () => {
    const t = await testInstance();
    const code = await mintCode(t);
    const first = await (await t.gatehouse.fetch(exchange(code))).json();
    t.clock.advance(61);
    const introspect = async () =>
      (
        await t.gatehouse.fetch(post('/oauth2/v1/introspect', { token: first.access_token }, DEMO_BASIC))
      ).json();
    // The grant is alive past the code's 60 s: whatever stops it below is the replay.
    expect((await introspect()).active).toBe(true);

    await expectError(await t.gatehouse.fetch(exchange(code)), 400, 'invalid_grant');
    const refresh = await t.gatehouse.fetch(
      post(
        '/oauth2/v1/token',
        { grant_type: 'refresh_token', refresh_token: first.refresh_token },
        DEMO_BASIC,
      ),
    );
    await expectError(refresh, 400, 'invalid_grant');
    expect(await introspect()).toEqual({ active: false });
  });

  it('revokes nothing when a replay comes with a bad verifier or bad client credentials', async () => {
    const t = await testInstance();
    const code = await mintCode(t);
    const first = await (await t.gatehouse.fetch(exchange(code))).json();
    await expectError(
      await t.gatehouse.fetch(exchange(code, { code_verifier: 'x'.repeat(43) })),
      400,
      'invalid_grant',
    );
    await expectError(
      await t.gatehouse.fetch(exchange(code, {}, { Authorization: basic('demo-client', 'wrong') })),
      401,
      'invalid_client',
    );
    await expectError(
      await t.gatehouse.fetch(exchange(code, {}, { Authorization: basic('other-client', 'other-secret') })),
      400,
      'invalid_grant',
    );
    const introspection = await t.gatehouse.fetch(
      post('/oauth2/v1/introspect', { token: first.access_token }, DEMO_BASIC),
    );
    expect((await introspection.json()).active).toBe(true);
  });

  it('binds the code to its client, redirect_uri and PKCE challenge', async () => {
    const t = await testInstance();
    const code = await mintCode(t);
    await expectError(
      await t.gatehouse.fetch(exchange(code, {}, { Authorization: basic('other-client', 'other-secret') })),
      400,
      'invalid_grant',
    );
    await expectError(
      await t.gatehouse.fetch(exchange(code, { redirect_uri: `${REDIRECT_URI}/` })),
      400,
      'invalid_grant',
    );
    await expectError(
      await t.gatehouse.fetch(exchange(code, { code_verifier: 'A'.repeat(43) })),
      400,
      'invalid_grant',
    );
    // None of the failures consumed the code.
    expect((await t.gatehouse.fetch(exchange(code))).status).toBe(200);
  });

  it('requires the verifier when the request had a challenge, and refuses one when it had none (downgrade)', async () => {
    const t = await testInstance();
    const withChallenge = await mintCode(t);
    const missing = post(
      '/oauth2/v1/token',
      { grant_type: 'authorization_code', code: withChallenge, redirect_uri: REDIRECT_URI },
      DEMO_BASIC,
    );
    await expectError(await t.gatehouse.fetch(missing), 400, 'invalid_grant');
    const withoutChallenge = await mintCode(t, { codeChallenge: null });
    await expectError(await t.gatehouse.fetch(exchange(withoutChallenge)), 400, 'invalid_grant');
    const plain = post(
      '/oauth2/v1/token',
      { grant_type: 'authorization_code', code: withoutChallenge, redirect_uri: REDIRECT_URI },
      DEMO_BASIC,
    );
    expect((await t.gatehouse.fetch(plain)).status).toBe(200);
  });

  it('refuses a malformed code_verifier as invalid_request', async () => {
    const t = await testInstance();
    await expectError(
      await t.gatehouse.fetch(exchange(await mintCode(t), { code_verifier: 'short' })),
      400,
      'invalid_request',
    );
  });

  it('expires codes after their lifetime', async () => {
    const t = await testInstance();
    const code = await mintCode(t);
    t.clock.advance(61);
    await expectError(await t.gatehouse.fetch(exchange(code)), 400, 'invalid_grant');
  });

  it('lets a public client redeem with client_id in the body and PKCE', async () => {
    const t = await testInstance();
    const code = await mintCode(t, { clientId: 'demo-spa' });
    const response = await t.gatehouse.fetch(exchange(code, { client_id: 'demo-spa' }, {}));
    expect(response.status).toBe(200);
  });

  it('does not issue a refresh token to a client without the refresh_token grant', async () => {
    const t = await testInstance();
    const code = await mintCode(t, { clientId: 'code-only' });
    const response = await t.gatehouse.fetch(
      exchange(code, {}, { Authorization: basic('code-only', 'code-secret') }),
    );
    const body = await response.json();
    expect(response.status).toBe(200);
    expect(body.refresh_token).toBeUndefined();
  });

  it('answers 100 parallel redemptions of one code with exactly one success', async () => {
    const t = await testInstance();
    const code = await mintCode(t);
    const responses = await Promise.all(Array.from({ length: 100 }, () => t.gatehouse.fetch(exchange(code))));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 400)).toHaveLength(99);
  });
});

describe('refresh_token grant', () => {
  const refresh = (
    token: string,
    extra: Record<string, string> = {},
    headers: Record<string, string> = DEMO_BASIC,
  ) => post('/oauth2/v1/token', { grant_type: 'refresh_token', refresh_token: token, ...extra }, headers);

  it('rotates the refresh token and issues a new access token', async () => {
    const t = await testInstance();
    const first = await issueTokens(t);
    const response = await t.gatehouse.fetch(refresh(first.refresh_token));
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const second = await response.json();
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.scope).toBe('read write');
  });

  it('treats reuse of a rotated token as theft and revokes the whole grant (RFC 9700 §4.14.2)', async () => {
    const t = await testInstance();
    const first = await issueTokens(t);
    const second = await (await t.gatehouse.fetch(refresh(first.refresh_token))).json();
    await expectError(await t.gatehouse.fetch(refresh(first.refresh_token)), 400, 'invalid_grant');
    await expectError(await t.gatehouse.fetch(refresh(second.refresh_token)), 400, 'invalid_grant');
    for (const token of [first.access_token, second.access_token]) {
      const introspection = await t.gatehouse.fetch(post('/oauth2/v1/introspect', { token }, DEMO_BASIC));
      expect(await introspection.json()).toEqual({ active: false });
    }
  });

  it('binds the refresh token to its client', async () => {
    const t = await testInstance();
    const { refresh_token } = await issueTokens(t);
    await expectError(
      await t.gatehouse.fetch(
        refresh(refresh_token, {}, { Authorization: basic('other-client', 'other-secret') }),
      ),
      400,
      'invalid_grant',
    );
    expect((await t.gatehouse.fetch(refresh(refresh_token))).status).toBe(200);
  });

  it('narrows the scope on request but never widens it', async () => {
    const t = await testInstance();
    const { refresh_token } = await issueTokens(t);
    await expectError(
      await t.gatehouse.fetch(refresh(refresh_token, { scope: 'read admin' })),
      400,
      'invalid_scope',
    );
    const narrowed = await (await t.gatehouse.fetch(refresh(refresh_token, { scope: 'read' }))).json();
    expect(narrowed.scope).toBe('read');
    // The rotated token keeps the grant's scope (RFC 6749 §6).
    const again = await (await t.gatehouse.fetch(refresh(narrowed.refresh_token))).json();
    expect(again.scope).toBe('read write');
  });

  it('ends the grant of a user who no longer exists', async () => {
    const t = await testInstance();
    const { refresh_token } = await issueTokens(t, 'read', 'user-gone');
    await expectError(await t.gatehouse.fetch(refresh(refresh_token)), 400, 'invalid_grant');
  });

  it('expires refresh tokens after their lifetime', async () => {
    const t = await testInstance({ refreshTokenTtl: 100 });
    const { refresh_token } = await issueTokens(t);
    t.clock.advance(101);
    await expectError(await t.gatehouse.fetch(refresh(refresh_token)), 400, 'invalid_grant');
  });

  it('keeps the refresh token when rotation is off', async () => {
    const t = await testInstance({ rotateRefreshTokens: false });
    const { refresh_token } = await issueTokens(t);
    const first = await (await t.gatehouse.fetch(refresh(refresh_token))).json();
    expect(first.refresh_token).toBeUndefined();
    expect((await t.gatehouse.fetch(refresh(refresh_token))).status).toBe(200);
  });

  it('answers 100 parallel refreshes of one token with exactly one success (strict rotation, no grace)', async () => {
    const t = await testInstance();
    const { refresh_token } = await issueTokens(t);
    const responses = await Promise.all(
      Array.from({ length: 100 }, () => t.gatehouse.fetch(refresh(refresh_token))),
    );
    expect(responses.filter((r) => r.status === 200)).toHaveLength(1);
    expect(responses.filter((r) => r.status === 400)).toHaveLength(99);
  });
});

describe('client authentication (RFC 6749 §2.3)', () => {
  it('answers unknown client and wrong secret identically with 401 and a Basic challenge', async () => {
    const t = await testInstance();
    const code = await mintCode(t);
    const wrong = await t.gatehouse.fetch(
      exchange(code, {}, { Authorization: basic('demo-client', 'nope') }),
    );
    const unknown = await t.gatehouse.fetch(exchange(code, {}, { Authorization: basic('ghost', 'nope') }));
    for (const response of [wrong, unknown]) {
      expect(response.headers.get('www-authenticate')).toMatch(
        /^Basic realm="http:\/\/localhost:3000\/demo"/,
      );
    }
    expect(await expectError(wrong, 401, 'invalid_client')).toEqual(
      await expectError(unknown, 401, 'invalid_client'),
    );
  });

  it('decodes form-urlencoded credentials inside Basic', async () => {
    const t = await testInstance();
    const code = await mintCode(t);
    const header = `Basic ${btoa('demo%2Dclient:demo%2Dsecret')}`;
    expect((await t.gatehouse.fetch(exchange(code, {}, { Authorization: header }))).status).toBe(200);
  });

  it('refuses two authentication methods at once, or a body client_id naming another client', async () => {
    const t = await testInstance();
    await expectError(
      await t.gatehouse.fetch(exchange(await mintCode(t), { client_secret: 'demo-secret' })),
      400,
      'invalid_request',
    );
    await expectError(
      await t.gatehouse.fetch(exchange(await mintCode(t), { client_id: 'other-client' })),
      400,
      'invalid_request',
    );
  });

  it('accepts a client_id in the body that matches the Basic credentials', async () => {
    const t = await testInstance();
    expect((await t.gatehouse.fetch(exchange(await mintCode(t), { client_id: 'demo-client' }))).status).toBe(
      200,
    );
  });

  it('refuses a confidential client that only names itself in the body', async () => {
    const t = await testInstance();
    await expectError(
      await t.gatehouse.fetch(exchange(await mintCode(t), { client_id: 'demo-client' }, {})),
      401,
      'invalid_client',
    );
  });

  it('refuses a request with no client at all', async () => {
    const t = await testInstance();
    await expectError(await t.gatehouse.fetch(exchange(await mintCode(t), {}, {})), 401, 'invalid_client');
  });

  it('answers malformed Basic headers as failed client authentication (401 invalid_client)', async () => {
    const t = await testInstance();
    for (const header of ['Basic', 'Basic !!!', `Basic ${btoa('no-colon')}`, `Basic ${btoa('%zz:x')}`]) {
      const response = await t.gatehouse.fetch(exchange('c', {}, { Authorization: header }));
      expect(response.headers.get('www-authenticate')).toMatch(/^Basic /);
      await expectError(response, 401, 'invalid_client');
    }
  });

  it('keeps error descriptions within the characters RFC 6749 §5.2 allows', async () => {
    const t = await testInstance();
    const requests = [
      post('/oauth2/v1/token', { grant_type: 'naïve"§\\' }, DEMO_BASIC),
      post('/oauth2/v1/token', 'grant_type=a&grant_type=b', DEMO_BASIC),
      exchange(await mintCode(t), { client_secret: 'x' }),
    ];
    for (const request of requests) {
      const { error_description } = await (await t.gatehouse.fetch(request)).json();
      expect(error_description).toMatch(/^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/);
    }
  });
});

describe('token endpoint request errors', () => {
  it('needs grant_type', async () => {
    const t = await testInstance();
    await expectError(
      await t.gatehouse.fetch(post('/oauth2/v1/token', {}, DEMO_BASIC)),
      400,
      'invalid_request',
    );
  });

  it('refuses unknown grant types', async () => {
    const t = await testInstance();
    for (const grant of ['password', 'implicit', 'toString', '__proto__']) {
      await expectError(
        await t.gatehouse.fetch(post('/oauth2/v1/token', { grant_type: grant }, DEMO_BASIC)),
        400,
        'unsupported_grant_type',
      );
    }
  });

  it('refuses a grant the client is not registered for as unauthorized_client', async () => {
    const t = await testInstance();
    const response = await t.gatehouse.fetch(
      post(
        '/oauth2/v1/token',
        { grant_type: 'refresh_token', refresh_token: 'x' },
        { Authorization: basic('code-only', 'code-secret') },
      ),
    );
    await expectError(response, 400, 'unauthorized_client');
  });

  it('refuses repeated parameters', async () => {
    const t = await testInstance();
    const code = await mintCode(t);
    const body = `grant_type=authorization_code&code=${code}&code=${code}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}`;
    await expectError(
      await t.gatehouse.fetch(post('/oauth2/v1/token', body, DEMO_BASIC)),
      400,
      'invalid_request',
    );
  });

  it('refuses a body that is not form-encoded', async () => {
    const t = await testInstance();
    const request = new Request(`${ISSUER}/oauth2/v1/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...DEMO_BASIC },
      body: '{"grant_type":"authorization_code"}',
    });
    await expectError(await t.gatehouse.fetch(request), 400, 'invalid_request');
  });

  it('answers 413 payload_too_large for bodies over the size cap, without reading them whole', async () => {
    const t = await testInstance({ maxBodyBytes: 1024 });
    const big = post(
      '/oauth2/v1/token',
      `grant_type=authorization_code&code=${'a'.repeat(5000)}`,
      DEMO_BASIC,
    );
    await expectError(await t.gatehouse.fetch(big), 413, 'payload_too_large');
  });

  it('answers 405 with Allow for the wrong method and 404 for unknown paths', async () => {
    const t = await testInstance();
    const wrong = await t.gatehouse.fetch(new Request(`${ISSUER}/oauth2/v1/token`));
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toContain('POST');
    await expectError(await t.gatehouse.fetch(new Request(`${ISSUER}/oauth2/v1/nope`)), 404, 'not_found');
    await expectError(
      await t.gatehouse.fetch(new Request('http://localhost:3000/elsewhere')),
      404,
      'not_found',
    );
  });
});
