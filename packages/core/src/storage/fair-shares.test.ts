/**
 * Fair shares of the anonymously writable stores (issue 41), over the instance's HTTP handler on
 * the memory engine with a small bound: flooding networks fill their shares past the store's
 * global bound, then a person from a fresh network still completes the flow. Each caller's network
 * comes from `X-Test-Address`. The same floods on Redis and PostgreSQL: examples/demo.
 */
import { memoryKeyValueStore } from '@gatehousejs/core/engine';
import { describe, expect, it } from 'vitest';
import { authorizeUrl, callbackParams, FakeBrowser, signIn } from '../../test/browser-flow';
import { dpopKey, dpopProof } from '../../test/dpop';
import { basic, ISSUER, PKCE_VERIFIER, post, REDIRECT_URI, testInstance } from '../../test/fixtures';

const address = (request: Request) => request.headers.get('x-test-address') ?? undefined;
/** The `i`-th flooding network: an address in a /24 of its own. */
const flooder = (i: number) => `10.${(i >> 8) & 255}.${i & 255}.1`;

describe('interactions (sign-in) under a flood from many networks', () => {
  it('makes room for a person from a fresh network: sign-in, code and tokens, never a 5xx', async () => {
    // 40 records in all; each network may start 5 per address (40 per /24) per ttl.
    const t = await testInstance({
      rateLimit: { clientAddress: address },
      interactions: { maxPerNetwork: 5 },
      storage: { kv: memoryKeyValueStore({ maxEntries: 40 }) },
    });
    const statuses = new Map<number, number>();
    for (let network = 0; network < 20; network++) {
      for (let i = 0; i < 6; i++) {
        const response = await new FakeBrowser(t.gatehouse).getOnce(authorizeUrl(), {
          'X-Test-Address': flooder(network),
        });
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      }
    }
    // 120 asked, past the 40 the store holds: the heaviest networks' oldest were evicted to make
    // room, and a network refused (429) once over its address's share (5) or over its fair share
    // of the full store (as many as any other network holds). Never a 5xx.
    expect([...statuses.keys()].sort()).toEqual([303, 429]);
    expect(statuses.get(303)).toBeGreaterThanOrEqual(40);
    const person = new FakeBrowser(t.gatehouse);
    const signedIn = await signInFrom(person, '192.0.2.7');
    const code = callbackParams(signedIn).get('code')!;
    const token = await t.gatehouse.fetch(
      post(
        '/oauth2/v1/token',
        { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: PKCE_VERIFIER },
        { Authorization: basic('demo-client', 'demo-secret') },
      ),
    );
    expect(token.status).toBe(200);
  });

  it('answers a network holding the whole store with the error page (429, its share spent), and makes room for another', async () => {
    const t = await testInstance({
      rateLimit: { clientAddress: address },
      storage: { kv: memoryKeyValueStore({ maxEntries: 10 }) },
    });
    const browser = new FakeBrowser(t.gatehouse);
    let refused: Response | undefined;
    for (let i = 0; i < 11 && !refused; i++) {
      const response = await browser.getOnce(authorizeUrl(), { 'X-Test-Address': '198.51.100.1' });
      if (response.status !== 303) refused = response;
    }
    expect(refused?.status).toBe(429);
    expect(refused?.headers.get('content-type')).toMatch(/^text\/html/);
    expect(refused?.headers.get('retry-after')).toBe('60');
    // Another network is not refused: the full store makes room from the one that filled it.
    expect((await browser.getOnce(authorizeUrl(), { 'X-Test-Address': '192.0.2.7' })).status).toBe(303);
  });

  it('counts the stored request in bytes of UTF-8, not UTF-16 units', async () => {
    const t = await testInstance();
    // 1,500 characters of three bytes each: 4,500 bytes, more than the 4,096 a pending record may hold.
    const response = await new FakeBrowser(t.gatehouse).getOnce(
      authorizeUrl({ state: '€'.repeat(1_000), nonce: '€'.repeat(500), scope: 'openid read' }),
    );
    expect(response.status).toBe(303);
    expect(callbackParams(response).get('error')).toBe('invalid_request');
  });
});

/** Authorize, sign in on the login page and come back with a code, from `from`. */
async function signInFrom(browser: FakeBrowser, from: string): Promise<Response> {
  const headers = { 'X-Test-Address': from };
  const toLogin = await browser.getOnce(authorizeUrl(), headers);
  expect(toLogin.status).toBe(303);
  return signIn(browser, toLogin.headers.get('location')!);
}

describe('DPoP proof ids under a flood from many networks', () => {
  it('charges a public client’s proofs to its caller’s network: a person elsewhere still gets a DPoP-bound token', async () => {
    const t = await testInstance({
      rateLimit: { clientAddress: address },
      storage: { kv: memoryKeyValueStore({ maxEntries: 60 }) },
    });
    const token = `${ISSUER}/oauth2/v1/token`;
    // 30 networks × 4 proofs with made-up codes for the public client: 120 ids past the 60 the
    // store holds. Each is refused as invalid_grant, or, once its network holds its fair share of
    // the full store (as many ids as any other), its proof is not remembered and so refused.
    for (let network = 0; network < 30; network++) {
      const key = await dpopKey();
      for (let i = 0; i < 4; i++) {
        const response = await t.gatehouse.fetch(
          post(
            '/oauth2/v1/token',
            {
              grant_type: 'authorization_code',
              code: 'made-up',
              redirect_uri: REDIRECT_URI,
              client_id: 'demo-spa',
            },
            { DPoP: await dpopProof(key, 'POST', token, t.clock.now()), 'X-Test-Address': flooder(network) },
          ),
        );
        expect(response.status).toBe(400);
        expect(['invalid_grant', 'invalid_dpop_proof']).toContain(
          ((await response.json()) as { error: string }).error,
        );
      }
    }
    const browser = new FakeBrowser(t.gatehouse);
    const signedIn = await signIn(browser, authorizeUrl({ client_id: 'demo-spa' }));
    const code = callbackParams(signedIn).get('code')!;
    const key = await dpopKey();
    const issued = await t.gatehouse.fetch(
      post(
        '/oauth2/v1/token',
        {
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT_URI,
          client_id: 'demo-spa',
          code_verifier: PKCE_VERIFIER,
        },
        { DPoP: await dpopProof(key, 'POST', token, t.clock.now()), 'X-Test-Address': '192.0.2.7' },
      ),
    );
    expect(issued.status).toBe(200);
    expect(((await issued.json()) as { token_type: string }).token_type).toBe('DPoP');
  });

  it('refuses a replayed proof of a network whose ids were evicted, until they would have expired', async () => {
    const t = await testInstance({
      rateLimit: { clientAddress: address },
      storage: { kv: memoryKeyValueStore({ maxEntries: 2 }) },
    });
    const token = `${ISSUER}/oauth2/v1/token`;
    const key = await dpopKey();
    const send = (proof: string, from: string) =>
      t.gatehouse.fetch(
        post(
          '/oauth2/v1/token',
          {
            grant_type: 'authorization_code',
            code: 'made-up',
            redirect_uri: REDIRECT_URI,
            client_id: 'demo-spa',
          },
          { DPoP: proof, 'X-Test-Address': from },
        ),
      );
    const first = await dpopProof(key, 'POST', token, t.clock.now());
    await send(first, '198.51.100.1');
    await send(await dpopProof(key, 'POST', token, t.clock.now()), '198.51.100.1');
    // A proof from another network evicts the first network's oldest id (and closes that network).
    const other = await send(await dpopProof(key, 'POST', token, t.clock.now()), '192.0.2.7');
    expect(((await other.json()) as { error: string }).error).toBe('invalid_grant');
    const replayed = await send(first, '198.51.100.1');
    expect(replayed.status).toBe(400);
    expect(((await replayed.json()) as { error: string }).error).toBe('invalid_dpop_proof');
  });
});
