/**
 * `resourceServer({ introspection })` against a real Gatehouse instance served over HTTP: the
 * resource server asks the instance's introspection endpoint (RFC 7662) as its own confidential
 * client, and answers requests as the JWT mode does.
 */
import { generateKeys } from '@gatehousejs/core';
import { type IntrospectionOptions, resourceServer } from '@gatehousejs/core/protect';
import { importJWK, SignJWT } from 'jose';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DocumentServer } from '../../test/document-server';
import { ath, dpopKey, dpopProof } from '../../test/dpop';
import {
  API,
  API_CLIENT,
  API_KEY_CLIENT,
  introspectingIssuer,
  WORKER,
} from '../../test/introspecting-issuer';

type Issuer = Awaited<ReturnType<typeof introspectingIssuer>>;

let issuer: Issuer;
beforeEach(async () => {
  issuer = await introspectingIssuer();
});
afterEach(async () => {
  vi.useRealTimers();
  await issuer.stop();
});

const INTROSPECT = '/demo/oauth2/v1/introspect';
const METADATA = '/.well-known/oauth-authorization-server/demo';

/**
 * The resource server under test. It asks about every token, signed or not (`signedTokensOnly:
 * false`), so that made-up and opaque tokens reach the endpoint; the default is tested apart.
 */
function api(introspection: Partial<IntrospectionOptions> = {}, as = API_CLIENT) {
  return resourceServer({
    issuer: issuer.issuer,
    resource: API,
    resourceMetadata: `${API}/.well-known/oauth-protected-resource`,
    introspection: { clientId: as.id, clientSecret: as.secret, signedTokensOnly: false, ...introspection },
    clientAddress: (request) => request.headers.get('x-client-address') ?? undefined,
  });
}

/** A request with `token`, from `address` when given (read by the `clientAddress` option). */
const call = (token: string, address?: string) =>
  new Request(`${API}/reports`, {
    headers: {
      Authorization: `Bearer ${token}`,
      ...(address === undefined ? {} : { 'x-client-address': address }),
    },
  });

async function refusal(result: Awaited<ReturnType<ReturnType<typeof api>['authenticate']>>) {
  expect(result.ok).toBe(false);
  if (result.ok) throw new Error('accepted');
  return {
    status: result.response.status,
    challenge: result.response.headers.get('www-authenticate'),
    body: await result.response.json(),
  };
}

describe('resource server with token introspection', () => {
  it('accepts an active token, with the caller from the answer, the endpoint found in the metadata', async () => {
    const server = api();
    const result = await server.authenticate(call(await issuer.token()), {
      schemes: ['bearer'],
      scope: 'reports:read',
      subjects: ['client'],
    });
    expect(result.ok && result.caller).toMatchObject({
      sub: WORKER.id,
      subject: { kind: 'client' },
      clientId: WORKER.id,
      scope: ['reports:read'],
      family: 'oauth2',
    });
    expect(issuer.count(METADATA)).toBe(1);
    expect(issuer.count(INTROSPECT)).toBe(1);
  });

  it('authenticates with private_key_jwt: a new assertion for each call', async () => {
    const server = resourceServer({
      issuer: issuer.issuer,
      resource: API,
      introspection: { clientId: API_KEY_CLIENT, privateKey: issuer.apiKey, cacheTtl: 0 },
    });
    const token = await issuer.token();
    for (let i = 0; i < 2; i++) {
      const result = await server.authenticate(call(token), 'reports:read');
      expect(result.ok && result.caller.sub).toBe(WORKER.id);
    }
    expect(issuer.count(INTROSPECT)).toBe(2);
    // Another key than the registered one: the endpoint refuses the client, the API answers 503.
    const impostor = resourceServer({
      issuer: issuer.issuer,
      resource: API,
      introspection: { clientId: API_KEY_CLIENT, privateKey: await generateKeys('ES256') },
    });
    expect((await refusal(await impostor.authenticate(call(token)))).status).toBe(503);
  });

  it('answers a repeated token from its cache, without a second call', async () => {
    const server = api();
    const token = await issuer.token();
    for (let i = 0; i < 3; i++)
      expect((await server.authenticate(call(token), 'reports:read')).ok).toBe(true);
    // Another route's options are checked against the kept answer: a user-only route refuses it.
    const usersOnly = await server.authenticate(call(token), { schemes: ['bearer'], subjects: ['user'] });
    expect(!usersOnly.ok && usersOnly.response.status).toBe(403);
    expect(issuer.count(INTROSPECT)).toBe(1);
    // Another token is another question.
    await server.authenticate(call(await issuer.token()));
    expect(issuer.count(INTROSPECT)).toBe(2);
    expect(issuer.count(METADATA)).toBe(1);
  });

  it('refuses a revoked token at once when answers are not kept', async () => {
    const server = api({ cacheTtl: 0 });
    const token = await issuer.token();
    const options = { schemes: ['bearer' as const], subjects: ['client' as const] };
    expect((await server.authenticate(call(token), options)).ok).toBe(true);
    await issuer.revoke(token);
    const refused = await refusal(await server.authenticate(call(token), options));
    expect(refused.status).toBe(401);
    expect(refused.challenge).toMatch(/^Bearer .*error="invalid_token".*resource_metadata=/);
    expect(issuer.count(INTROSPECT)).toBe(2);
  });

  it('keeps accepting a revoked token until the cache window ends, then refuses it', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const server = api({ cacheTtl: 60 });
    const token = await issuer.token();
    const options = { schemes: ['bearer' as const], subjects: ['client' as const] };
    expect((await server.authenticate(call(token), options)).ok).toBe(true);
    await issuer.revoke(token);
    vi.setSystemTime(Date.now() + 59_000);
    // The documented bound: a revocation is seen within `cacheTtl`.
    expect((await server.authenticate(call(token), options)).ok).toBe(true);
    expect(issuer.count(INTROSPECT)).toBe(1);
    vi.setSystemTime(Date.now() + 2_000);
    expect((await refusal(await server.authenticate(call(token), options))).status).toBe(401);
    expect(issuer.count(INTROSPECT)).toBe(2);
  });

  it('refuses an expired token, never keeping an answer past the exp', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const server = api({ cacheTtl: 3600 });
    const token = await issuer.token(); // 300 s
    const options = { schemes: ['bearer' as const], subjects: ['client' as const] };
    expect((await server.authenticate(call(token), options)).ok).toBe(true);
    vi.setSystemTime(Date.now() + 310_000); // past `exp` and both sides' 5 s clock tolerance
    const refused = await refusal(await server.authenticate(call(token), options));
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe('invalid_token');
    expect(issuer.count(INTROSPECT)).toBe(2);
  });

  it('refuses an active token for another audience (aud from the answer)', async () => {
    // The holder's own client may introspect its token; its `aud` is the instance's API, not this one.
    const server = api({}, WORKER);
    const refused = await refusal(await server.authenticate(call(await issuer.token(null))));
    expect(refused.status).toBe(401);
    expect(refused.challenge).toMatch(/error="invalid_token"/);
    expect(refused.body.error_description).toMatch(/not meant for this API/);
  });

  it('gets no answer about tokens for other resources from the API client (RFC 7662 §4)', async () => {
    const refused = await refusal(await api().authenticate(call(await issuer.token(null))));
    expect(refused.status).toBe(401);
    expect(refused.body.error_description).toMatch(/invalid, expired or revoked/);
  });

  it('asks about opaque tokens as about any other (it does not parse them)', async () => {
    const server = api({ inactiveCacheTtl: 0 });
    expect((await refusal(await server.authenticate(call('an-opaque-token')))).status).toBe(401);
    expect((await refusal(await server.authenticate(call('an-opaque-token')))).status).toBe(401);
    expect(issuer.count(INTROSPECT)).toBe(2);
  });

  it('refuses a token answered inactive from memory for inactiveCacheTtl seconds, then asks again', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const server = api({ inactiveCacheTtl: 5 });
    for (let i = 0; i < 3; i++) {
      const refused = await refusal(await server.authenticate(call('a-made-up-token')));
      expect(refused.status).toBe(401);
      expect(refused.challenge).toMatch(/error="invalid_token"/);
    }
    expect(issuer.count(INTROSPECT)).toBe(1);
    vi.setSystemTime(Date.now() + 5_000);
    expect((await refusal(await server.authenticate(call('a-made-up-token')))).status).toBe(401);
    expect(issuer.count(INTROSPECT)).toBe(2);
  });

  it('keeps inactive answers in their own share of maxCacheBytes: a flood of them never pushes an active answer out', async () => {
    // 16,000 bytes: about nine active answers, and two inactive ones in their eighth.
    const server = api({ maxCacheBytes: 16_000, cacheTtl: 600 });
    const token = await issuer.token();
    expect((await server.authenticate(call(token), 'reports:read')).ok).toBe(true);
    for (let i = 0; i < 50; i++) await server.authenticate(call(`made-up-${i}`));
    expect(issuer.count(INTROSPECT)).toBe(51);
    // The active answer is still kept…
    expect((await server.authenticate(call(token), 'reports:read')).ok).toBe(true);
    expect(issuer.count(INTROSPECT)).toBe(51);
    // …the latest inactive ones too, the earlier ones were pushed out by later ones.
    await server.authenticate(call('made-up-49'));
    expect(issuer.count(INTROSPECT)).toBe(51);
    await server.authenticate(call('made-up-0'));
    expect(issuer.count(INTROSPECT)).toBe(52);
  });

  it('answers 429 for new tokens from a network past its budget of inactive answers, without asking; other networks and kept answers unaffected', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const server = api({
      maxInactivePerNetwork: 3,
      maxInactivePerAggregate: 5,
      inactiveWindowSeconds: 60,
      inactiveCacheTtl: 0,
    });
    const kept = await issuer.token();
    expect((await server.authenticate(call(kept, '198.51.100.7'), 'reports:read')).ok).toBe(true);
    for (let i = 0; i < 3; i++)
      expect((await refusal(await server.authenticate(call(`made-up-${i}`, '198.51.100.7')))).status).toBe(
        401,
      );
    expect(issuer.count(INTROSPECT)).toBe(4);

    // Past the budget: 429 with Retry-After, not 401 (the token was not asked about, RFC 6585 §4).
    const limited = await server.authenticate(call('made-up-3', '198.51.100.7'));
    expect(!limited.ok && limited.response.status).toBe(429);
    if (limited.ok) throw new Error('accepted');
    expect(limited.response.headers.get('retry-after')).toBe('60');
    expect(await limited.response.json()).toMatchObject({ error: 'too_many_requests' });
    // A valid token without a kept answer waits too; the one with a kept answer keeps working.
    const fresh = await issuer.token();
    expect((await refusal(await server.authenticate(call(fresh, '198.51.100.7')))).status).toBe(429);
    expect((await server.authenticate(call(kept, '198.51.100.7'), 'reports:read')).ok).toBe(true);
    expect(issuer.count(INTROSPECT)).toBe(4);

    // Another network of the same /24 has its own budget, until their aggregate's (5) is spent.
    for (let i = 0; i < 2; i++)
      expect((await refusal(await server.authenticate(call(`other-${i}`, '198.51.100.8')))).status).toBe(401);
    expect((await refusal(await server.authenticate(call('other-2', '198.51.100.9')))).status).toBe(429);
    // IPv6: one /64 is one network, whatever the address in it.
    for (let i = 0; i < 3; i++) await server.authenticate(call(`v6-${i}`, `2001:db8:1:2::${i + 1}`));
    expect((await refusal(await server.authenticate(call('v6-3', '2001:db8:1:2::99')))).status).toBe(429);
    // Other networks, and requests without an address, are not affected.
    expect((await server.authenticate(call(fresh, '203.0.113.7'), 'reports:read')).ok).toBe(true);
    expect((await refusal(await server.authenticate(call('no-address')))).status).toBe(401);

    // When the window ends, the network is asked about again.
    vi.setSystemTime(Date.now() + 60_000);
    expect((await refusal(await server.authenticate(call('made-up-4', '198.51.100.7')))).status).toBe(401);
  });

  it('counts no budget for active answers: a network presenting valid tokens is never limited', async () => {
    const server = api({ maxInactivePerNetwork: 1, maxInactivePerAggregate: 1, cacheTtl: 0 });
    const token = await issuer.token();
    for (let i = 0; i < 5; i++)
      expect((await server.authenticate(call(token, '198.51.100.7'), 'reports:read')).ok).toBe(true);
    expect(issuer.count(INTROSPECT)).toBe(5);
  });

  it('makes one call for concurrent requests with the same token', async () => {
    const server = api();
    const token = await issuer.token();
    const results = await Promise.all(
      Array.from({ length: 5 }, () => server.authenticate(call(token), 'reports:read')),
    );
    expect(results.every((result) => result.ok)).toBe(true);
    expect(issuer.count(INTROSPECT)).toBe(1);
  });

  it('accepts a DPoP-bound token (cnf in the answer) with a proof, and refuses it as Bearer', async () => {
    const key = await dpopKey();
    const token = await issuer.token(API, {
      DPoP: await dpopProof(key, 'POST', `${issuer.issuer}/oauth2/v1/token`, Date.now()),
    });
    const server = api();
    const url = `${API}/reports`;
    const proof = await dpopProof(key, 'GET', url, Date.now(), { ath: await ath(token) });
    const accepted = await server.authenticate(
      new Request(url, { headers: { Authorization: `DPoP ${token}`, DPoP: proof } }),
      'reports:read',
    );
    expect(accepted.ok && accepted.caller).toMatchObject({ sub: WORKER.id, dpopJkt: key.jkt });
    const asBearer = await refusal(await server.authenticate(call(token)));
    expect(asBearer.status).toBe(401);
    expect(asBearer.challenge).toMatch(/DPoP realm=.*error="invalid_token"/);
  });

  it('answers 503 temporarily_unavailable when the endpoint is down, never letting the token in', async () => {
    const token = await issuer.token();
    const server = api({ endpoint: issuer.introspectionEndpoint, timeoutMs: 2000 });
    await issuer.stop();
    const refused = await refusal(await server.authenticate(call(token)));
    expect(refused.status).toBe(503);
    expect(refused.body.error).toBe('temporarily_unavailable');
    expect(refused.body.error_description).toBe('The token introspection endpoint could not be reached.');
    issuer = await introspectingIssuer(); // for afterEach
  });

  it('answers 503 at once beyond maxConcurrent calls in flight, and 503 for a call that times out', async () => {
    const slow = new DocumentServer();
    await slow.start();
    try {
      slow.routes.set('/introspect', () => {}); // never answers
      const server = api({ endpoint: `${slow.origin}/introspect`, maxConcurrent: 1, timeoutMs: 1000 });
      const first = server.authenticate(call('token-one'));
      while (slow.count(`${slow.origin}/introspect`) === 0) await new Promise((r) => setTimeout(r, 10));
      const second = await refusal(await server.authenticate(call('token-two')));
      expect(second.status).toBe(503);
      expect(second.body.error_description).toMatch(/Too many token introspections/);
      const timedOut = await refusal(await first);
      expect(timedOut.status).toBe(503);
      expect(timedOut.body.error).toBe('temporarily_unavailable');
      expect(slow.count(`${slow.origin}/introspect`)).toBe(1);
    } finally {
      await slow.stop();
    }
  });

  it('answers 503 when the metadata cannot be fetched or the client is refused by the endpoint', async () => {
    const token = await issuer.token();
    const wrongSecret = await refusal(
      await api({ clientSecret: 'not-the-secret' }).authenticate(call(token)),
    );
    expect(wrongSecret.status).toBe(503);
    // Not "could not be reached": the endpoint answered, refusing the client (a configuration fix).
    expect(wrongSecret.body.error_description).toMatch(
      /refused this resource server's client \(HTTP 401\): check introspection\.clientId/,
    );
    const noMetadata = resourceServer({
      issuer: `${issuer.issuer}/elsewhere`,
      resource: API,
      introspection: { clientId: API_CLIENT.id, clientSecret: API_CLIENT.secret },
    });
    expect((await refusal(await noMetadata.authenticate(call(token)))).status).toBe(503);
  });

  it('refuses options that cannot work when it is made', () => {
    expect(() => api({ clientSecret: '' })).toThrow(
      expect.objectContaining({ code: 'ERR_CONFIG_INVALID_OPTION', option: 'introspection.clientSecret' }),
    );
    expect(() => api({ privateKey: { kty: 'oct', k: 'x', alg: 'HS256' } })).toThrow(
      expect.objectContaining({ option: 'introspection.clientSecret' }),
    );
    expect(() =>
      resourceServer({
        issuer: issuer.issuer,
        resource: API,
        introspection: { clientId: API_KEY_CLIENT, privateKey: { kty: 'oct', k: 'x', alg: 'HS256' } },
      }),
    ).toThrow(expect.objectContaining({ option: 'introspection.privateKey' }));
    expect(() => api({ cacheTtl: -1 })).toThrow(
      expect.objectContaining({ option: 'introspection.cacheTtl' }),
    );
    expect(() => api({ inactiveCacheTtl: 61 })).toThrow(
      expect.objectContaining({ option: 'introspection.inactiveCacheTtl' }),
    );
    for (const option of ['maxInactivePerNetwork', 'maxInactivePerAggregate', 'inactiveWindowSeconds'])
      expect(() => api({ [option]: 0.5 })).toThrow(
        expect.objectContaining({ code: 'ERR_CONFIG_INVALID_OPTION', option: `introspection.${option}` }),
      );
    expect(() =>
      resourceServer({
        issuer: issuer.issuer,
        resource: API,
        clientAddress: 'x-forwarded-for' as never,
      }),
    ).toThrow(expect.objectContaining({ code: 'ERR_CONFIG_INVALID_OPTION', option: 'clientAddress' }));
    expect(() =>
      resourceServer({
        issuer: issuer.issuer,
        resource: API,
        jwksUri: `${issuer.issuer}/oauth2/v1/keys`,
        introspection: { clientId: API_CLIENT.id, clientSecret: API_CLIENT.secret, signedTokensOnly: false },
      }),
    ).toThrow(expect.objectContaining({ code: 'ERR_CONFIG_CONFLICTING_OPTIONS', option: 'jwksUri' }));
  });
});

describe('resource server with token introspection, asking only about tokens the issuer signed (the default)', () => {
  const signedOnly = () =>
    resourceServer({
      issuer: issuer.issuer,
      resource: API,
      introspection: { clientId: API_CLIENT.id, clientSecret: API_CLIENT.secret },
    });

  it('refuses made-up and foreign-signed tokens without a call, and asks about the issuer’s own', async () => {
    const rs = signedOnly();
    const before = issuer.count(INTROSPECT);
    // A token of the right shape and claims, signed by a key that is not the issuer's.
    const foreignKey = await generateKeys('ES256');
    const foreign = await new SignJWT({
      iss: issuer.issuer,
      sub: 'x',
      aud: API,
      scope: 'reports:read',
      jti: 'j',
    })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: foreignKey.kid })
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(await importJWK(foreignKey, 'ES256'));
    for (const token of ['made-up', 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln', foreign]) {
      const result = await rs.authenticate(call(token), 'reports:read');
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.response.status).toBe(401);
        expect(result.response.headers.get('www-authenticate')).toContain('error="invalid_token"');
      }
    }
    expect(issuer.count(INTROSPECT)).toBe(before);
    expect((await rs.authenticate(call(await issuer.token()), 'reports:read')).ok).toBe(true);
    expect(issuer.count(INTROSPECT)).toBe(before + 1);
  });
});
