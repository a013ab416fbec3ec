import { authenticateNow, withAuthentication } from '@gatehousejs/core/adapter';
import { memoryGrantStore } from '@gatehousejs/core/engine';
import type { AuthenticateOptions } from '@gatehousejs/core/protect';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { basic, ISSUER, post } from '../../test/fixtures';
import { API, apiPost, protectInstance, signWithInstanceKey } from '../../test/protect-fixtures';

const BEARER: AuthenticateOptions = { schemes: ['bearer'] };
const REALM = `Bearer realm="${ISSUER}"`;

function withToken(token: string, scheme = 'Bearer'): Request {
  return apiPost({ Authorization: `${scheme} ${token}` });
}

/** An Auth API access token signed with the instance key, valid for 60 s from `now` (epoch ms). */
function authApiToken(now: number, jti: string): Promise<string> {
  return signWithInstanceKey(
    {
      iss: ISSUER,
      sub: 'user-1',
      aud: `${ISSUER}/api/v1`,
      iat: now / 1000,
      exp: now / 1000 + 60,
      jti,
      token_family: 'auth_api',
    },
    { typ: 'at+jwt' },
  );
}

async function expectInvalidToken(
  result: Awaited<ReturnType<Awaited<ReturnType<typeof protectInstance>>['gatehouse']['authenticate']>>,
) {
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.response.status).toBe(401);
  const challenge = result.response.headers.get('www-authenticate')!;
  expect(challenge.startsWith(`${REALM}, error="invalid_token"`)).toBe(true);
  expect(challenge).toContain('error_description="');
  expect(await result.response.json()).toEqual({
    error: 'invalid_token',
    error_description: expect.any(String),
  });
}

describe('bearer scheme', () => {
  it('accepts a valid OAuth 2.0 access token and describes the caller', async () => {
    const t = await protectInstance();
    const token = await t.oauthToken('read write');
    const result = await t.gatehouse.authenticate(withToken(token), BEARER);
    expect(result).toEqual({
      ok: true,
      caller: {
        sub: 'user-1',
        subject: { kind: 'user', userId: 'user-1' },
        scheme: 'bearer',
        clientId: 'demo-client',
        scope: ['read', 'write'],
        family: 'oauth2',
        tokenId: expect.any(String),
        expiresAt: t.clock.now() / 1000 + 3600,
      },
    });
  });

  it('accepts an Auth API access token', async () => {
    const t = await protectInstance();
    const result = await t.gatehouse.authenticate(withToken(await t.authApiToken()), BEARER);
    expect(result.ok && result.caller).toMatchObject({
      sub: 'user-1',
      scheme: 'bearer',
      family: 'auth_api',
      scope: [],
    });
  });

  it('treats the scheme name case-insensitively', async () => {
    const t = await protectInstance();
    const token = await t.oauthToken();
    for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
      expect((await t.gatehouse.authenticate(withToken(token, scheme), BEARER)).ok).toBe(true);
    }
  });

  it('answers a request without credentials with a bare Bearer challenge and a JSON body', async () => {
    const t = await protectInstance();
    const result = await t.gatehouse.authenticate(apiPost({}), BEARER);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.response.status).toBe(401);
    expect(result.response.headers.get('www-authenticate')).toBe(REALM);
    expect(result.response.headers.get('content-type')).toMatch(/^application\/json/);
    expect((await result.response.json()).error).toBe('unauthorized');
  });

  it('ignores a token in the query string', async () => {
    const t = await protectInstance();
    const token = await t.oauthToken();
    const request = new Request(`${API}?access_token=${token}`, { method: 'POST', body: '{}' });
    const result = await t.gatehouse.authenticate(request, BEARER);
    expect(!result.ok && result.response.headers.get('www-authenticate')).toBe(REALM);
  });

  it('ignores other authorization schemes', async () => {
    const t = await protectInstance();
    const result = await t.gatehouse.authenticate(
      apiPost({ Authorization: basic('demo-client', 'demo-secret') }),
      BEARER,
    );
    expect(!result.ok && result.response.status).toBe(401);
    expect(!result.ok && result.response.headers.get('www-authenticate')).toBe(REALM);
  });

  it('refuses a token sent both in the header and in a form body with 400 invalid_request', async () => {
    const t = await protectInstance();
    const token = await t.oauthToken();
    const request = post('/api/v1/tickets', { access_token: token }, { Authorization: `Bearer ${token}` });
    const result = await t.gatehouse.authenticate(request, BEARER);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.response.status).toBe(400);
    expect(result.response.headers.get('www-authenticate')).toContain('error="invalid_request"');
    expect((await result.response.json()).error).toBe('invalid_request');
  });

  it('leaves a form body readable by the operation after checking it for a second token', async () => {
    const t = await protectInstance();
    const request = post(
      '/api/v1/tickets',
      { title: 'printer' },
      { Authorization: `Bearer ${await t.oauthToken()}` },
    );
    expect((await t.gatehouse.authenticate(request, BEARER)).ok).toBe(true);
    expect(await request.text()).toBe('title=printer');
  });

  it('answers a malformed Bearer header with 400 invalid_request', async () => {
    const t = await protectInstance();
    for (const header of ['Bearer', 'Bearer a b', 'Bearer ä']) {
      const result = await t.gatehouse.authenticate(apiPost({ Authorization: header }), BEARER);
      expect(!result.ok && result.response.status).toBe(400);
      expect(!result.ok && result.response.headers.get('www-authenticate')).toContain(
        'error="invalid_request"',
      );
    }
  });

  it('reads the Authorization header by the RFC 6750 §2.1 grammar, whatever its shape', async () => {
    const t = await protectInstance();
    // The grammar, written as regular expressions: what the hand-written scanner must agree with.
    const expected = (header: string) => {
      const match = /^bearer(?:[ ]+(.*))?$/is.exec(header.trim());
      if (!match) return 'no credentials';
      return /^[A-Za-z0-9\-._~+/]+=*$/.test((match[1] ?? '').trim()) ? 'invalid token' : 'malformed';
    };
    const outcome = async (header: string) => {
      const result = await t.gatehouse.authenticate(apiPost({ Authorization: header }), BEARER);
      if (result.ok) return 'accepted';
      const challenge = result.response.headers.get('www-authenticate') ?? '';
      if (result.response.status === 400 && challenge.includes('error="invalid_request"')) return 'malformed';
      if (result.response.status === 401 && challenge.includes('error="invalid_token"'))
        return 'invalid token';
      return result.response.status === 401 && !challenge.includes('error=') ? 'no credentials' : 'other';
    };
    const scheme = fc.constantFrom(
      'Bearer',
      'bearer',
      'BEARER',
      'bEaReR',
      'Bearerx',
      'Bear',
      'Basic',
      'bearer=',
      '',
    );
    const gap = fc.constantFrom('', ' ', '   ', '\t', ' \t ');
    const tokenChar = fc.constantFrom(...'aZ09-._~+/= ,ä\t"'.split(''));
    const header = fc
      .tuple(gap, scheme, gap, fc.string({ unit: tokenChar, maxLength: 12 }), gap)
      .map((parts) => parts.join(''));
    await fc.assert(
      fc.asyncProperty(header, async (value) => {
        expect(await outcome(value)).toBe(expected(value));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses garbage tokens', async () => {
    const t = await protectInstance();
    for (const token of ['garbage', 'a.b.c', 'eyJhbGciOiJFUzI1NiJ9.e30.AAAA', 'x'.repeat(9000)]) {
      await expectInvalidToken(await t.gatehouse.authenticate(withToken(token), BEARER));
    }
  });

  it('refuses an unsigned token (alg none)', async () => {
    const t = await protectInstance();
    const now = t.clock.now() / 1000;
    const enc = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const [, payload] = (await t.oauthToken()).split('.');
    const claims = { ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), iat: now };
    const { kid } = JSON.parse(Buffer.from((await t.oauthToken()).split('.')[0]!, 'base64url').toString());
    const unsigned = `${enc({ alg: 'none', typ: 'at+jwt', kid })}.${enc(claims)}.`;
    await expectInvalidToken(await t.gatehouse.authenticate(withToken(unsigned), BEARER));
  });

  it('refuses a JWT of another type signed with the instance key (ID-token-like typ: JWT)', async () => {
    const t = await protectInstance();
    const now = t.clock.now() / 1000;
    const claims = {
      iss: ISSUER,
      sub: 'user-1',
      aud: `${ISSUER}/api/v1`,
      iat: now,
      exp: now + 600,
      jti: 'j1',
      client_id: 'demo-client',
      token_family: 'oauth2',
      scope: '',
    };
    await expectInvalidToken(
      await t.gatehouse.authenticate(withToken(await signWithInstanceKey(claims, { typ: 'JWT' })), BEARER),
    );
    await expectInvalidToken(
      await t.gatehouse.authenticate(withToken(await signWithInstanceKey(claims)), BEARER),
    );
    // The same claims with the right type pass: the refusals above are about the type alone.
    const good = await signWithInstanceKey(claims, { typ: 'at+jwt' });
    expect((await t.gatehouse.authenticate(withToken(good), BEARER)).ok).toBe(true);
    // Wrong issuer or audience.
    const wrongIss = await signWithInstanceKey(
      { ...claims, iss: 'http://localhost:3000/other' },
      { typ: 'at+jwt' },
    );
    await expectInvalidToken(await t.gatehouse.authenticate(withToken(wrongIss), BEARER));
    const wrongAud = await signWithInstanceKey(
      { ...claims, aud: 'https://elsewhere.example/api' },
      { typ: 'at+jwt' },
    );
    await expectInvalidToken(await t.gatehouse.authenticate(withToken(wrongAud), BEARER));
    const unknownKid = await signWithInstanceKey(claims, { typ: 'at+jwt', kid: 'not-a-key' });
    await expectInvalidToken(await t.gatehouse.authenticate(withToken(unknownKid), BEARER));
  });

  it('accepts a token within the clock tolerance of its expiry and refuses it after', async () => {
    const t = await protectInstance();
    const token = await t.oauthToken();
    t.clock.advance(3600 + 4);
    expect((await t.gatehouse.authenticate(withToken(token), BEARER)).ok).toBe(true);
    t.clock.advance(2);
    await expectInvalidToken(await t.gatehouse.authenticate(withToken(token), BEARER));
  });

  it('refuses a revoked token', async () => {
    const t = await protectInstance();
    const token = await t.oauthToken();
    expect((await t.gatehouse.authenticate(withToken(token), BEARER)).ok).toBe(true);
    const revoked = await t.gatehouse.fetch(
      post(
        '/oauth2/v1/revoke',
        { token, token_type_hint: 'access_token' },
        { Authorization: basic('demo-client', 'demo-secret') },
      ),
    );
    expect(revoked.status).toBe(200);
    await expectInvalidToken(await t.gatehouse.authenticate(withToken(token), BEARER));
  });

  it('answers 403 insufficient_scope naming the required scopes', async () => {
    const t = await protectInstance();
    const token = await t.oauthToken('read');
    const result = await t.gatehouse.authenticate(withToken(token), {
      schemes: ['bearer'],
      scope: ['read', 'write'],
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.response.status).toBe(403);
    const challenge = result.response.headers.get('www-authenticate')!;
    expect(challenge.startsWith(`${REALM}, error="insufficient_scope"`)).toBe(true);
    expect(challenge).toContain('scope="read write"');
    expect((await result.response.json()).error).toBe('insufficient_scope');
    expect(
      (await t.gatehouse.authenticate(withToken(token), { schemes: ['bearer'], scope: 'read' })).ok,
    ).toBe(true);
  });

  it('answers 503 when the revocation store fails, never 500', async () => {
    const grants = memoryGrantStore();
    const t = await protectInstance({
      storage: {
        grants: {
          ...grants,
          saveCode: grants.saveCode.bind(grants),
          isRevoked: async () => {
            throw new Error('connection refused');
          },
        },
      },
      logger: { warn() {}, error() {} },
    });
    const token = await authApiToken(t.clock.now(), 'j2');
    const result = await t.gatehouse.authenticate(withToken(token), BEARER);
    expect(!result.ok && result.response.status).toBe(503);
  });

  it('rejects options that name no or unknown schemes', async () => {
    const t = await protectInstance();
    await expect(t.gatehouse.authenticate(apiPost({}), { schemes: [] })).rejects.toThrow(TypeError);
    await expect(
      t.gatehouse.authenticate(apiPost({}), {
        schemes: ['basic'] as unknown as AuthenticateOptions['schemes'],
      }),
    ).rejects.toThrow(TypeError);
  });

  it('validates a schemes list again when the host changed it in place', async () => {
    const t = await protectInstance();
    const schemes: string[] = ['bearer'];
    const options = { schemes } as unknown as AuthenticateOptions;
    expect((await t.gatehouse.authenticate(apiPost({}), options)).ok).toBe(false);
    schemes.push('basic');
    await expect(t.gatehouse.authenticate(apiPost({}), options)).rejects.toThrow(TypeError);
  });

  it('gives the same frozen caller for every use of a token', async () => {
    const t = await protectInstance();
    const token = await t.oauthToken('read write');
    const first = await t.gatehouse.authenticate(withToken(token), BEARER);
    const second = await t.gatehouse.authenticate(withToken(token), BEARER);
    expect(first.ok && second.ok && first.caller === second.caller).toBe(true);
    expect(first.ok && Object.isFrozen(first.caller) && Object.isFrozen(first.caller.scope)).toBe(true);
  });

  it('answers a token seen before synchronously (authenticateNow), revocation included', async () => {
    const t = await protectInstance();
    const token = await t.oauthToken();
    // First use: the signature is checked, which is asynchronous.
    const first = authenticateNow(t.gatehouse, withToken(token), BEARER);
    expect(first).toBeInstanceOf(Promise);
    expect((await first).ok).toBe(true);
    const again = authenticateNow(t.gatehouse, withToken(token), BEARER);
    expect(again).not.toBeInstanceOf(Promise);
    expect(again).toEqual(await first);
    const revoked = await t.gatehouse.fetch(
      post('/oauth2/v1/revoke', { token }, { Authorization: basic('demo-client', 'demo-secret') }),
    );
    expect(revoked.status).toBe(200);
    const afterRevocation = authenticateNow(t.gatehouse, withToken(token), BEARER);
    expect(afterRevocation).not.toBeInstanceOf(Promise);
    await expectInvalidToken(afterRevocation as Awaited<typeof afterRevocation>);
  });

  it('waits only where it must: a form body, a store answering with a promise', async () => {
    const t = await protectInstance();
    const token = await t.oauthToken();
    await t.gatehouse.authenticate(withToken(token), BEARER);
    const form = new Request(API, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'title=x',
    });
    const withForm = authenticateNow(t.gatehouse, form, BEARER);
    expect(withForm).toBeInstanceOf(Promise);
    expect((await withForm).ok).toBe(true);

    const grants = memoryGrantStore();
    const hosted = await protectInstance({
      storage: {
        grants: { ...grants, saveCode: grants.saveCode.bind(grants), isRevoked: async () => false },
      },
    });
    const hostedToken = await authApiToken(hosted.clock.now(), 'j3');
    await hosted.gatehouse.authenticate(withToken(hostedToken), BEARER);
    const pending = authenticateNow(hosted.gatehouse, withToken(hostedToken), BEARER);
    expect(pending).toBeInstanceOf(Promise);
    expect((await pending).ok).toBe(true);
  });

  it('throws TypeError from authenticateNow for options that name no schemes', async () => {
    const t = await protectInstance();
    expect(() => authenticateNow(t.gatehouse, apiPost({}), { schemes: [] })).toThrow(TypeError);
  });

  it('hands the result on through withAuthentication, at once when it can', async () => {
    const t = await protectInstance();
    const token = await t.oauthToken();
    await t.gatehouse.authenticate(withToken(token), BEARER);
    const seen: string[] = [];
    const now = withAuthentication(t.gatehouse, withToken(token), BEARER, (result) => {
      seen.push(result.ok ? result.caller.sub : 'refused');
      return 'used';
    });
    expect(now).toBe('used');
    expect(seen).toEqual(['user-1']);
    // An authenticator with `authenticate` only (a wrapper, a test double) is awaited.
    const plain = { authenticate: t.gatehouse.authenticate };
    const later = withAuthentication(plain, withToken(token), BEARER, (result) => result.ok);
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toBe(true);
  });
});
