import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type ClientRecord,
  hashClientSecret,
  memoryClientStore,
  memoryStorage,
  type OutboundFetch,
} from '@gatehousejs/core';
import { addressCheckingFetch } from '@gatehousejs/core/node';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { expectAssertionAcceptedOnce } from '../../../test/assertion-replay';
import {
  ISSUER,
  post,
  REDIRECT_URI,
  type TestOptions,
  testClients,
  testInstance,
} from '../../../test/fixtures';

const TOKEN = '/oauth2/v1/token';
const TOKEN_URL = ISSUER + TOKEN;
const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** An ES256 key pair: the private key to sign with, the public JWK to register. */
async function keyPair(kid: string) {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return { privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256' } as JWK, kid };
}

type KeyPair = Awaited<ReturnType<typeof keyPair>>;

interface AssertionOptions {
  readonly iss?: string;
  readonly sub?: string;
  readonly aud?: string | string[];
  /** Seconds from the clock's now. */
  readonly expiresIn?: number;
  readonly jti?: string | null;
  readonly iatOffset?: number;
}

let jtiCounter = 0;

/** A client assertion (RFC 7523 §3) for `clientId`, signed with `key`, at the instance clock. */
async function assertion(key: KeyPair, clientId: string, now: number, options: AssertionOptions = {}) {
  const iat = Math.floor(now / 1000) + (options.iatOffset ?? 0);
  const jwt = new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: key.kid })
    .setIssuer(options.iss ?? clientId)
    .setSubject(options.sub ?? clientId)
    .setAudience(options.aud ?? ISSUER)
    .setIssuedAt(iat)
    .setExpirationTime(iat + (options.expiresIn ?? 60));
  if (options.jti !== null) jwt.setJti(options.jti ?? `jti-${++jtiCounter}-${crypto.randomUUID()}`);
  return jwt.sign(key.privateKey);
}

const grant = (clientAssertion: string, extra: Record<string, string> = {}) =>
  post(TOKEN, {
    grant_type: 'client_credentials',
    client_assertion_type: JWT_BEARER,
    client_assertion: clientAssertion,
    ...extra,
  });

async function expectInvalidClient(response: Response) {
  expect(response.status).toBe(401);
  expect((await response.json()).error).toBe('invalid_client');
  expect(response.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
}

/** A confidential client registered for private_key_jwt with `keys`. */
function jwtClient(id: string, keys: Partial<ClientRecord>): ClientRecord {
  return {
    id,
    type: 'confidential',
    tokenEndpointAuthMethod: 'private_key_jwt',
    grantTypes: ['client_credentials', 'authorization_code'],
    redirectUris: [REDIRECT_URI],
    scopes: ['read'],
    ...keys,
  };
}

async function setUp(extra: (key: KeyPair) => ClientRecord[] = () => [], options: TestOptions = {}) {
  const key = await keyPair('k1');
  const t = await testInstance({
    clients: memoryClientStore([
      ...(await testClients()),
      jwtClient('jwt-client', { jwks: { keys: [key.publicJwk] } }),
      ...extra(key),
    ]),
    ...options,
  });
  return { t, key, now: () => t.clock.now() };
}

describe('private_key_jwt (RFC 7523 §2.2, OpenID Connect Core §9)', () => {
  it('authenticates a client by an assertion signed with a registered key, aud the issuer or the endpoint', async () => {
    const { t, key, now } = await setUp();
    for (const aud of [ISSUER, TOKEN_URL, [TOKEN_URL, 'https://elsewhere.example']]) {
      const response = await t.gatehouse.fetch(
        grant(await assertion(key, 'jwt-client', now(), { aud }), { scope: 'read' }),
      );
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ token_type: 'Bearer', scope: 'read' });
    }
    // The client_id may be sent too, when it names the same client.
    const withId = await t.gatehouse.fetch(
      grant(await assertion(key, 'jwt-client', now()), { client_id: 'jwt-client' }),
    );
    expect(withId.status).toBe(200);
    // At the revocation endpoint, its own URL is an audience as well.
    const revoke = await t.gatehouse.fetch(
      post('/oauth2/v1/revoke', {
        token: 'unknown',
        client_assertion_type: JWT_BEARER,
        client_assertion: await assertion(key, 'jwt-client', now(), { aud: `${ISSUER}/oauth2/v1/revoke` }),
      }),
    );
    expect(revoke.status).toBe(200);
  });

  it('refuses a replayed assertion: its jti is single use (RFC 7523 §3 item 7)', async () => {
    const { t, key, now } = await setUp();
    const once = await assertion(key, 'jwt-client', now());
    expect((await t.gatehouse.fetch(grant(once))).status).toBe(200);
    await expectInvalidClient(await t.gatehouse.fetch(grant(once)));
    // Another assertion with the same jti is a replay too.
    const sameJti = await assertion(key, 'jwt-client', now(), { jti: 'fixed', expiresIn: 30 });
    expect((await t.gatehouse.fetch(grant(sameJti))).status).toBe(200);
    await expectInvalidClient(
      await t.gatehouse.fetch(grant(await assertion(key, 'jwt-client', now(), { jti: 'fixed' }))),
    );
  });

  it('remembers a jti as long as the assertion is accepted: exp plus the clock tolerance (RFC 7523 §3 item 7)', async () => {
    const { t, key, now } = await setUp();
    const once = await assertion(key, 'jwt-client', now(), { expiresIn: 60 });
    expect((await t.gatehouse.fetch(grant(once))).status).toBe(200);
    // Past exp, still within the 5 s tolerance: the assertion would verify, so its jti must be known.
    for (const after of [60, 1, 2, 1]) {
      t.clock.advance(after);
      await expectInvalidClient(await t.gatehouse.fetch(grant(once)));
    }
  });

  it('accepts an assertion once on the memory engine at the real clock, also after its exp', async () => {
    await expectAssertionAcceptedOnce(memoryStorage());
  });

  it('refuses an assertion issued in the future beyond the clock tolerance, and accepts one within it', async () => {
    const { t, key, now } = await setUp();
    await expectInvalidClient(
      await t.gatehouse.fetch(grant(await assertion(key, 'jwt-client', now(), { iatOffset: 60 }))),
    );
    await expectInvalidClient(
      await t.gatehouse.fetch(grant(await assertion(key, 'jwt-client', now(), { iatOffset: 6 }))),
    );
    const skewed = await assertion(key, 'jwt-client', now(), { iatOffset: 4 });
    expect((await t.gatehouse.fetch(grant(skewed))).status).toBe(200);
  });

  it('gives each client its own share of the replay store: one that fills it locks out only itself', async () => {
    const other = await keyPair('k2');
    const { t, key, now } = await setUp(() => [
      jwtClient('other-jwt-client', { jwks: { keys: [other.publicJwk] } }),
    ]);
    // The default share: 1,000 new assertion ids per client while its first one is remembered.
    for (let i = 0; i < 1000; i++) {
      expect((await t.gatehouse.fetch(grant(await assertion(key, 'jwt-client', now())))).status).toBe(200);
    }
    // Its share is full: its next fresh assertion is refused (never a replay accepted)…
    await expectInvalidClient(await t.gatehouse.fetch(grant(await assertion(key, 'jwt-client', now()))));
    // …while another private_key_jwt client of the instance is unaffected.
    for (let i = 0; i < 3; i++) {
      const response = await t.gatehouse.fetch(grant(await assertion(other, 'other-jwt-client', now())));
      expect(response.status).toBe(200);
    }
    // Once its assertions can no longer be accepted (exp + tolerance), the first client's share is free.
    t.clock.advance(66);
    expect((await t.gatehouse.fetch(grant(await assertion(key, 'jwt-client', now())))).status).toBe(200);
  });

  it('gives a client the replay share its record names (maxAssertionsPerWindow), and an introspecting one more', async () => {
    const [small, introspecting] = [await keyPair('k2'), await keyPair('k3')];
    const { t, now } = await setUp(() => [
      jwtClient('small-share', { jwks: { keys: [small.publicJwk] }, maxAssertionsPerWindow: 3 }),
      jwtClient('resource-server', {
        jwks: { keys: [introspecting.publicJwk] },
        introspects: ['https://api.example.com'],
      }),
    ]);
    for (let i = 0; i < 3; i++)
      expect((await t.gatehouse.fetch(grant(await assertion(small, 'small-share', now())))).status).toBe(200);
    await expectInvalidClient(await t.gatehouse.fetch(grant(await assertion(small, 'small-share', now()))));
    // A resource server that introspects signs one assertion per call: past the 1,000 of others.
    for (let i = 0; i < 1001; i++) {
      const response = await t.gatehouse.fetch(
        grant(await assertion(introspecting, 'resource-server', now())),
      );
      expect(response.status).toBe(200);
    }
  });

  it('refuses expired, long-lived, wrong-audience, foreign-key and mismatched assertions alike', async () => {
    const { t, key, now } = await setUp();
    const foreign = await keyPair('k1');
    const cases = [
      await assertion(key, 'jwt-client', now(), { iatOffset: -120, expiresIn: 60 }), // expired
      await assertion(key, 'jwt-client', now(), { expiresIn: 3600 }), // lives an hour
      await assertion(key, 'jwt-client', now(), { aud: 'https://other.example' }),
      await assertion(key, 'jwt-client', now(), { aud: `${ISSUER}/oauth2/v1/userinfo` }),
      await assertion(foreign, 'jwt-client', now()), // same kid, another key
      await assertion(key, 'jwt-client', now(), { iss: 'demo-client' }),
      await assertion(key, 'jwt-client', now(), { jti: null }),
      await assertion(key, 'nobody', now()), // unknown client
      await assertion(key, 'demo-client', now()), // registered for client_secret_basic
    ];
    for (const presented of cases) await expectInvalidClient(await t.gatehouse.fetch(grant(presented)));
  });

  it('accepts asymmetric algorithms only: no "none", no HMAC keyed with anything public', async () => {
    const { t, key, now } = await setUp();
    const valid = await assertion(key, 'jwt-client', now());
    const [, payload] = valid.split('.');
    const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.`;
    const hmac = await new SignJWT(JSON.parse(Buffer.from(payload!, 'base64url').toString()))
      .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
      .sign(new TextEncoder().encode(JSON.stringify(key.publicJwk)));
    for (const presented of [unsigned, hmac, 'not-a-jwt', `${valid}x`]) {
      await expectInvalidClient(await t.gatehouse.fetch(grant(presented)));
    }
  });

  it('treats an unknown assertion type as an unsupported method and half an assertion as malformed', async () => {
    const { t, key, now } = await setUp();
    const presented = await assertion(key, 'jwt-client', now());
    await expectInvalidClient(
      await t.gatehouse.fetch(
        post(TOKEN, {
          grant_type: 'client_credentials',
          client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:saml2-bearer',
          client_assertion: presented,
        }),
      ),
    );
    const half = await t.gatehouse.fetch(
      post(TOKEN, { grant_type: 'client_credentials', client_assertion_type: JWT_BEARER }),
    );
    expect(half.status).toBe(400);
    expect((await half.json()).error).toBe('invalid_request');
  });

  it('refuses an assertion from a client registered for client_secret_post, and a secret from a JWT client', async () => {
    const { t, key, now } = await setUp(() => [], {});
    await expectInvalidClient(
      await t.gatehouse.fetch(
        post(TOKEN, { grant_type: 'client_credentials', client_id: 'jwt-client', client_secret: 'x' }),
      ),
    );
    expect((await t.gatehouse.fetch(grant(await assertion(key, 'jwt-client', now())))).status).toBe(200);
  });
});

describe('private_key_jwt with a jwks_uri (RFC 7591 §2)', () => {
  const JWKS_URI = 'https://keys.example.com/jwks.json';

  /** A transport serving `documents()` at any URL, counting calls (the guarded fetch runs around it). */
  function fakeTransport(documents: () => unknown) {
    const calls: string[] = [];
    const fetch: OutboundFetch = async ({ url }) => {
      calls.push(url.href);
      return new Response(JSON.stringify(documents()), { headers: { 'Content-Type': 'application/json' } });
    };
    return { fetch, calls };
  }

  it('fetches the key set once, caches it, and fetches again for a key it does not know yet', async () => {
    let keys: JWK[] = [];
    const served = fakeTransport(() => ({ keys }));
    const { t, now } = await setUp(() => [jwtClient('uri-client', { jwksUri: JWKS_URI })], {
      clientJwks: { fetch: served.fetch },
    });
    const first = await keyPair('first');
    keys = [first.publicJwk];
    for (let i = 0; i < 3; i++) {
      expect((await t.gatehouse.fetch(grant(await assertion(first, 'uri-client', now())))).status).toBe(200);
    }
    expect(served.calls).toEqual([JWKS_URI]);
    // The client rotates: a new kid is fetched again, but not more than once a minute.
    const second = await keyPair('second');
    keys = [first.publicJwk, second.publicJwk];
    await expectInvalidClient(await t.gatehouse.fetch(grant(await assertion(second, 'uri-client', now()))));
    expect(served.calls).toHaveLength(1);
    t.clock.advance(61);
    expect((await t.gatehouse.fetch(grant(await assertion(second, 'uri-client', now())))).status).toBe(200);
    expect(served.calls).toHaveLength(2);
  });

  it('never hands an http, credentialed, loopback or private-address jwks_uri to the transport', async () => {
    const key = await keyPair('k');
    const served = fakeTransport(() => ({ keys: [key.publicJwk] }));
    const refused = [
      'http://keys.example.com/jwks',
      'https://127.0.0.1/jwks',
      'https://10.0.0.8/jwks',
      'https://169.254.169.254/latest',
      'https://[::1]/jwks',
      'https://[fd00::1]/jwks',
      'https://localhost/jwks',
      'https://user:pw@keys.example.com/jwks',
      'not a url',
    ];
    const { t, now } = await setUp(() => refused.map((jwksUri, i) => jwtClient(`c${i}`, { jwksUri })), {
      clientJwks: { fetch: served.fetch, allowLoopback: false },
    });
    for (let i = 0; i < refused.length; i++) {
      await expectInvalidClient(await t.gatehouse.fetch(grant(await assertion(key, `c${i}`, now()))));
    }
    expect(served.calls).toEqual([]);
  });

  it('fetches over real HTTP with addressCheckingFetch: loopback only when allowed, DNS names checked at connection time', async () => {
    const key = await keyPair('k');
    const accepted: (string | undefined)[] = [];
    const server = createServer((request, response) => {
      accepted.push(request.headers.accept);
      response.writeHead(200, { 'Content-Type': 'application/jwk-set+json' });
      response.end(JSON.stringify({ keys: [key.publicJwk] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const local = `http://127.0.0.1:${port}/jwks`;
      const allowed = await setUp(() => [jwtClient('local', { jwksUri: local })], {
        clientJwks: { fetch: addressCheckingFetch(), allowLoopback: true },
      });
      const presented = await assertion(key, 'local', allowed.now());
      expect((await allowed.t.gatehouse.fetch(grant(presented))).status).toBe(200);
      expect(accepted).toEqual(['application/jwk-set+json, application/json']);

      // A public-looking name whose addresses include a loopback one is refused before connecting.
      const rebound = `https://keys.example.test:${port}/jwks`;
      const strict = await setUp(
        () => [jwtClient('local', { jwksUri: local }), jwtClient('named', { jwksUri: rebound })],
        {
          clientJwks: {
            fetch: addressCheckingFetch({
              resolve: async () => [
                { address: '93.184.215.14', family: 4 },
                { address: '127.0.0.1', family: 4 },
              ],
            }),
          },
        },
      );
      await expectInvalidClient(
        await strict.t.gatehouse.fetch(grant(await assertion(key, 'local', strict.now()))),
      );
      await expectInvalidClient(
        await strict.t.gatehouse.fetch(grant(await assertion(key, 'named', strict.now()))),
      );
      expect(accepted).toHaveLength(1);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('refuses a key set that redirects, is too large, is not JSON or holds private keys', async () => {
    const key = await keyPair('k');
    const privateJwk = { ...(await exportJWK(key.privateKey)), kid: 'k' };
    // Each answer but one flaw would be a usable key set.
    const keySet = JSON.stringify({ keys: [key.publicJwk] });
    const answers: Record<string, () => Response> = {
      '/redirect': () => new Response(keySet, { status: 302, headers: { Location: 'https://10.0.0.1/' } }),
      '/large': () => new Response(JSON.stringify({ keys: [key.publicJwk], pad: 'x'.repeat(5000) })),
      '/text': () => new Response(`${keySet}x`),
      '/private': () => new Response(JSON.stringify({ keys: [privateJwk] })),
      '/status': () => new Response(keySet, { status: 500 }),
    };
    const fetch: OutboundFetch = async ({ url }) => answers[url.pathname]!();
    const { t, now } = await setUp(
      () =>
        Object.keys(answers).map((path) => jwtClient(path.slice(1), { jwksUri: `https://k.example${path}` })),
      { clientJwks: { fetch, maxBytes: 4096 } },
    );
    for (const path of Object.keys(answers)) {
      await expectInvalidClient(await t.gatehouse.fetch(grant(await assertion(key, path.slice(1), now()))));
    }
  });

  it('answers 401, never a 5xx, when the key set host does not answer in time', async () => {
    const key = await keyPair('k');
    const hanging: OutboundFetch = ({ signal }) =>
      new Promise((_resolve, reject) => {
        signal.addEventListener('abort', () => reject(signal.reason));
      });
    const { t, now } = await setUp(() => [jwtClient('slow', { jwksUri: JWKS_URI })], {
      clientJwks: { fetch: hanging, timeoutMs: 100 },
    });
    await expectInvalidClient(await t.gatehouse.fetch(grant(await assertion(key, 'slow', now()))));
  });

  it('refuses the removed allowPrivateNetwork option by name, and out-of-range limits', async () => {
    await expect(testInstance({ clientJwks: { allowPrivateNetwork: true } as never })).rejects.toThrow(
      /clientJwks\.allowPrivateNetwork: unknown option/,
    );
    await expect(testInstance({ clientJwks: { timeoutMs: 10 } })).rejects.toThrow(/clientJwks\.timeoutMs/);
    await expect(testInstance({ clientJwks: { maxBytes: 10 } })).rejects.toThrow(/clientJwks\.maxBytes/);
  });

  it('keeps a secret-registered client unaffected by the new method', async () => {
    const t = await testInstance({
      clients: memoryClientStore([
        {
          id: 'post-client',
          type: 'confidential',
          secretHash: await hashClientSecret('s'),
          tokenEndpointAuthMethod: 'client_secret_post',
          grantTypes: ['client_credentials'],
          redirectUris: [],
        },
      ]),
    });
    const response = await t.gatehouse.fetch(
      post(TOKEN, { grant_type: 'client_credentials', client_id: 'post-client', client_secret: 's' }),
    );
    expect(response.status).toBe(200);
  });
});
