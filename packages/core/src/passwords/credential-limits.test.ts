import { memoryUserStore } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { basic, ISSUER, post, testHasher, testInstance, userBasic } from '../../test/fixtures';
import { recordingRateLimits } from '../../test/recording-kv';
import { CREDENTIAL_LIMITS } from './credential-limits.js';

// Bounds on credentials, applied before anything is counted, stored or hashed: through the Auth API
// (Basic header) and the OAuth token endpoint (client Basic header). The login form's share is in
// `oauth2/authorize/login.test.ts`.

const ADDRESS_HEADER = 'x-test-address';
const rateLimit = { clientAddress: (request: Request) => request.headers.get(ADDRESS_HEADER) ?? undefined };

function tokenRequest(authorization: string, address = '192.0.2.1'): Request {
  return new Request(`${ISSUER}/auth/v1/token`, {
    method: 'POST',
    headers: { Authorization: authorization, [ADDRESS_HEADER]: address },
  });
}

/** The demo user and a rate-limit store, counting password checks and recording written keys. */
async function observed() {
  const users = memoryUserStore(
    [{ id: 'user-1', username: 'demo', passwordHash: await testHasher.hash('demo-password') }],
    { hasher: testHasher },
  );
  const { kv, keys } = recordingRateLimits();
  const seen = { verifications: 0, keys };
  const t = await testInstance({
    rateLimit,
    users: {
      verifyPassword(username, password) {
        seen.verifications++;
        return users.verifyPassword(username, password);
      },
      findUser: (id) => users.findUser(id),
    },
    storage: { kv },
  });
  return { ...t, seen };
}

const tooLongUsername = 'u'.repeat(CREDENTIAL_LIMITS.maxUsernameLength + 1);
const tooLongPassword = 'p'.repeat(CREDENTIAL_LIMITS.maxPasswordLength + 1);

describe('credential limits', () => {
  it('are 256 characters for usernames and 1024 for passwords', () => {
    expect(CREDENTIAL_LIMITS).toEqual({ maxUsernameLength: 256, maxPasswordLength: 1024 });
  });

  it('answer over-long credentials exactly like a wrong password, without checking or keying them', async () => {
    const t = await observed();
    const wrong = await t.gatehouse.fetch(tokenRequest(userBasic('demo', 'wrong')));
    const wrongBody = await wrong.text();
    const keysBefore = new Set(t.seen.keys);
    for (const [username, password] of [
      [tooLongUsername, 'wrong'],
      ['demo', tooLongPassword],
      [`${'\uFDFA'.repeat(CREDENTIAL_LIMITS.maxUsernameLength)}x`, 'wrong'],
    ] as const) {
      const response = await t.gatehouse.fetch(tokenRequest(userBasic(username, password)));
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(wrong.headers.get('www-authenticate'));
      expect(await response.text()).toBe(wrongBody);
    }
    expect(t.seen.verifications).toBe(1);
    // Charged to the address only: no per-username counter for any of them.
    const added = [...t.seen.keys].filter((key) => !keysBefore.has(key));
    expect(added.filter((key) => key.startsWith('pw:user:'))).toEqual([]);
  });

  it('charge over-long credentials to the client address', async () => {
    const t = await testInstance({ rateLimit: { ...rateLimit, maxFailuresPerAddress: 3 } });
    for (let i = 0; i < 3; i++) {
      expect((await t.gatehouse.fetch(tokenRequest(userBasic(tooLongUsername, 'x')))).status).toBe(401);
    }
    expect((await t.gatehouse.fetch(tokenRequest(userBasic('demo', 'demo-password')))).status).toBe(429);
    const elsewhere = tokenRequest(userBasic('demo', 'demo-password'), '198.51.100.1');
    expect((await t.gatehouse.fetch(elsewhere)).status).toBe(200);
  });

  it('check credentials exactly at the limits, however many bytes their characters take', async () => {
    const t = await observed();
    // Three UTF-8 bytes per character: the longest Basic header the limits allow.
    const username = '\uFDFA'.repeat(CREDENTIAL_LIMITS.maxUsernameLength);
    const password = '\u20AC'.repeat(CREDENTIAL_LIMITS.maxPasswordLength);
    const response = await t.gatehouse.fetch(tokenRequest(userBasic(username, password)));
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: 'invalid_grant' });
    expect(t.seen.verifications).toBe(1);
  });

  it('refuse a Basic header longer than any credentials within the limits need, before decoding it', async () => {
    const t = await observed();
    const header = userBasic('demo', 'x'.repeat(6000));
    expect(header.length).toBeLessThan(10_000);
    const response = await t.gatehouse.fetch(tokenRequest(header));
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('Basic realm=');
    expect(await response.json()).toMatchObject({
      error: 'invalid_request',
      error_description: 'The Basic authorization header is too long.',
    });
    expect(t.seen.verifications).toBe(0);
    expect(t.seen.keys.size).toBe(0);
  });

  it('refuse an over-long client Basic header at the OAuth token endpoint as failed client authentication', async () => {
    const t = await testInstance();
    const response = await t.gatehouse.fetch(
      post(
        '/oauth2/v1/token',
        { grant_type: 'refresh_token', refresh_token: 'x' },
        { Authorization: basic('demo-client', 's'.repeat(6000)) },
      ),
    );
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: 'invalid_client' });
  });
});
