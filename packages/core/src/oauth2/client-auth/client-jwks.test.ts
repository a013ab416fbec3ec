/**
 * The bounds of `jwks_uri` fetches (issue 27 item 4): the same as client ID metadata documents'
 * (one bounded fetch cache): a per-address charge, caps on fetches in flight, a negative cache and
 * a byte budget, over HTTP token requests authenticated with `private_key_jwt`. Never a 5xx but
 * the caps' 503 with `Retry-After`.
 */
import {
  type ClientJwksOptions,
  type ClientRecord,
  JWT_BEARER_ASSERTION_TYPE,
  memoryClientStore,
  type OutboundFetch,
} from '@gatehousejs/core';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { ISSUER, post, REDIRECT_URI, testClients, testInstance } from '../../../test/fixtures';

const ADDRESS = 'x-test-address';

async function keyPair() {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return { privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid: 'k', alg: 'ES256' } as JWK };
}
type KeyPair = Awaited<ReturnType<typeof keyPair>>;

const uriClient = (index: number): ClientRecord => ({
  id: `uri-${index}`,
  type: 'confidential',
  tokenEndpointAuthMethod: 'private_key_jwt',
  grantTypes: ['client_credentials'],
  redirectUris: [REDIRECT_URI],
  scopes: ['read'],
  jwksUri: `https://keys${index % 3}.example/${index}/jwks.json`,
});

/** `count` clients with distinct `jwks_uri`s on three origins, served by `fetch`. */
async function setUp(count: number, fetch: OutboundFetch, options: ClientJwksOptions = {}) {
  const t = await testInstance({
    clients: memoryClientStore([
      ...(await testClients()),
      ...Array.from({ length: count }, (_, i) => uriClient(i)),
    ]),
    clientJwks: { fetch, ...options },
    rateLimit: { clientAddress: (request) => request.headers.get(ADDRESS) ?? undefined },
  });
  return t;
}

/** A client_credentials request of client `uri-{index}`, from `address`. */
async function tokenRequest(
  t: Awaited<ReturnType<typeof setUp>>,
  key: KeyPair,
  index: number,
  address = '198.51.100.7',
): Promise<Response> {
  const now = Math.floor(t.clock.now() / 1000);
  const clientId = `uri-${index}`;
  const assertion = await new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: 'k' })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(ISSUER)
    .setIssuedAt(now)
    .setExpirationTime(now + 60)
    .setJti(crypto.randomUUID())
    .sign(key.privateKey);
  return t.gatehouse.fetch(
    post(
      '/oauth2/v1/token',
      {
        grant_type: 'client_credentials',
        client_assertion_type: JWT_BEARER_ASSERTION_TYPE,
        client_assertion: assertion,
      },
      { [ADDRESS]: address },
    ),
  );
}

/** A transport answering every URL with `body()`, counting calls per URL and fetches in flight. */
function countingTransport(body: (url: URL) => string | Promise<string>) {
  const calls = new Map<string, number>();
  let inFlight = 0;
  const stats = { maxInFlight: 0 };
  const fetch: OutboundFetch = async ({ url }) => {
    calls.set(url.href, (calls.get(url.href) ?? 0) + 1);
    inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, inFlight);
    try {
      return new Response(await body(url), { headers: { 'Content-Type': 'application/json' } });
    } finally {
      inFlight--;
    }
  };
  return { fetch, calls, stats, count: (index: number) => calls.get(uriClient(index).jwksUri!) ?? 0 };
}

describe('jwks_uri fetch bounds', () => {
  it('charge each fetch to the client address: beyond maxFetchesPerAddress 429, cached sets and other addresses unaffected', async () => {
    const key = await keyPair();
    const served = countingTransport(() => JSON.stringify({ keys: [key.publicJwk] }));
    const t = await setUp(3, served.fetch, { maxFetchesPerAddress: 2 });
    expect((await tokenRequest(t, key, 0)).status).toBe(200);
    expect((await tokenRequest(t, key, 1)).status).toBe(200);
    const refused = await tokenRequest(t, key, 2);
    expect(refused.status).toBe(429);
    expect((await refused.json()).error).toBe('too_many_requests');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(served.count(2)).toBe(0);
    expect((await tokenRequest(t, key, 0)).status).toBe(200); // cached: no charge
    expect((await tokenRequest(t, key, 2, '203.0.113.9')).status).toBe(200);
  });

  it('cap the fetches in flight: beyond maxConcurrentFetches 503 with Retry-After, never more outbound at once', async () => {
    const key = await keyPair();
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const served = countingTransport(async () => {
      await held;
      return JSON.stringify({ keys: [key.publicJwk] });
    });
    const t = await setUp(12, served.fetch, { maxConcurrentFetches: 4, maxConcurrentFetchesPerOrigin: 4 });
    const answers = Array.from({ length: 12 }, (_, i) => tokenRequest(t, key, i, `192.0.2.${i + 1}`));
    await new Promise((resolve) => setTimeout(resolve, 200));
    release();
    const statuses = (await Promise.all(answers)).map((response) => response.status);
    expect(served.stats.maxInFlight).toBeLessThanOrEqual(4);
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((status) => status === 200 || status === 503)).toBe(true);
    expect(statuses.filter((status) => status === 503).length).toBeGreaterThan(0);
  });

  it('remember a failed fetch for 30 s: one outbound GET per interval, not per request', async () => {
    const key = await keyPair();
    const served = countingTransport(() => 'not json');
    const t = await setUp(1, served.fetch);
    for (let i = 0; i < 4; i++) expect((await tokenRequest(t, key, 0)).status).toBe(401);
    expect(served.count(0)).toBe(1);
    t.clock.advance(31);
    expect((await tokenRequest(t, key, 0)).status).toBe(401);
    expect(served.count(0)).toBe(2);
  });

  it('keep key sets within maxCacheBytes, least recently used first', async () => {
    const key = await keyPair();
    // ~12 KB documents (an ignored member pads them): about 25 KB each in the cache.
    const served = countingTransport(() =>
      JSON.stringify({ keys: [key.publicJwk], padding: 'x'.repeat(12_000) }),
    );
    const t = await setUp(5, served.fetch, { maxCacheBytes: 65_536, maxFetchesPerAddress: 100 });
    for (let i = 0; i < 5; i++) expect((await tokenRequest(t, key, i)).status).toBe(200);
    expect((await tokenRequest(t, key, 4)).status).toBe(200);
    expect(served.count(4)).toBe(1);
    expect((await tokenRequest(t, key, 0)).status).toBe(200);
    expect(served.count(0)).toBe(2);
  });

  it('refuse a key set of more than 32 keys', async () => {
    const key = await keyPair();
    const many = Array.from({ length: 33 }, (_, i) => ({ ...key.publicJwk, kid: i === 0 ? 'k' : `k${i}` }));
    const served = countingTransport(() => JSON.stringify({ keys: many }));
    const t = await setUp(1, served.fetch);
    expect((await tokenRequest(t, key, 0)).status).toBe(401);
  });
});
