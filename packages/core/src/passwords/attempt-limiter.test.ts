import { type GatehouseEvent, memoryUserStore, type UserStore } from '@gatehouse/core';
import { describe, expect, it } from 'vitest';
import { ISSUER, testHasher, testInstance, userBasic } from '../../test/fixtures';

// The brute-force policy of password checks, exercised through the Auth API token endpoint.

const ADDRESS_HEADER = 'x-test-address';
const rateLimit = { clientAddress: (request: Request) => request.headers.get(ADDRESS_HEADER) ?? undefined };

function login(username: string, password: string, address = '192.0.2.1'): Request {
  return new Request(`${ISSUER}/auth/v1/token`, {
    method: 'POST',
    headers: { Authorization: userBasic(username, password), [ADDRESS_HEADER]: address },
  });
}

async function failTimes(
  t: Awaited<ReturnType<typeof testInstance>>,
  n: number,
  username = 'demo',
  address?: string,
) {
  for (let i = 0; i < n; i++) {
    const response = await t.gatehouse.fetch(login(username, `wrong-${i}`, address));
    expect(response.status).toBe(401);
  }
}

/** The demo user, counting how often a password is checked. */
async function countingUsers(): Promise<UserStore & { readonly verifications: number }> {
  const base = memoryUserStore(
    [{ id: 'user-1', username: 'demo', passwordHash: await testHasher.hash('demo-password') }],
    { hasher: testHasher },
  );
  let verifications = 0;
  return {
    get verifications() {
      return verifications;
    },
    verifyPassword: (username, password) => {
      verifications++;
      return base.verifyPassword(username, password);
    },
    findUser: (id) => base.findUser(id),
  };
}

describe('password attempt limiter', () => {
  it('answers 429 with Retry-After after 5 failures of one username from one address, even for the right password', async () => {
    const t = await testInstance({ rateLimit });
    await failTimes(t, 5);
    const blocked = await t.gatehouse.fetch(login('demo', 'demo-password'));
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('retry-after')).toBe('900');
    expect(await blocked.json()).toMatchObject({ error: 'too_many_requests' });
  });

  it('counts Retry-After down to the end of the window', async () => {
    const t = await testInstance({ rateLimit });
    await failTimes(t, 5);
    t.clock.advance(600);
    const blocked = await t.gatehouse.fetch(login('demo', 'wrong'));
    expect(blocked.headers.get('retry-after')).toBe('300');
  });

  it('still lets the right password in from another address', async () => {
    const t = await testInstance({ rateLimit });
    await failTimes(t, 5, 'demo', '192.0.2.1');
    expect((await t.gatehouse.fetch(login('demo', 'demo-password', '192.0.2.1'))).status).toBe(429);
    expect((await t.gatehouse.fetch(login('demo', 'demo-password', '198.51.100.7'))).status).toBe(200);
  });

  it('lets attempts through again once the window has passed', async () => {
    const t = await testInstance({ rateLimit });
    await failTimes(t, 5);
    t.clock.advance(899);
    expect((await t.gatehouse.fetch(login('demo', 'demo-password'))).status).toBe(429);
    t.clock.advance(1);
    expect((await t.gatehouse.fetch(login('demo', 'demo-password'))).status).toBe(200);
  });

  it('forgets earlier failures after a successful login', async () => {
    const t = await testInstance({ rateLimit });
    await failTimes(t, 4);
    expect((await t.gatehouse.fetch(login('demo', 'demo-password'))).status).toBe(200);
    await failTimes(t, 5);
    expect((await t.gatehouse.fetch(login('demo', 'demo-password'))).status).toBe(429);
  });

  it('counts usernames case-insensitively, so varying the case does not buy more guesses', async () => {
    const t = await testInstance({ rateLimit });
    await failTimes(t, 3, 'demo');
    await failTimes(t, 2, 'DEMO');
    expect((await t.gatehouse.fetch(login('Demo', 'whatever'))).status).toBe(429);
  });

  it('limits failures per address across usernames', async () => {
    const t = await testInstance({ rateLimit: { ...rateLimit, maxFailuresPerAddress: 6 } });
    for (let i = 0; i < 6; i++) await failTimes(t, 1, `user-${i}`);
    const blocked = await t.gatehouse.fetch(login('demo', 'demo-password'));
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('retry-after')).toBe('900');
    expect((await t.gatehouse.fetch(login('demo', 'demo-password', '203.0.113.9'))).status).toBe(200);
  });

  it('follows the configured limits and window', async () => {
    const t = await testInstance({
      rateLimit: { ...rateLimit, maxFailuresPerUsername: 2, windowSeconds: 60 },
    });
    await failTimes(t, 2);
    const blocked = await t.gatehouse.fetch(login('demo', 'demo-password'));
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('retry-after')).toBe('60');
    t.clock.advance(60);
    expect((await t.gatehouse.fetch(login('demo', 'demo-password'))).status).toBe(200);
  });

  it('keys on the username alone when the client address is unknown', async () => {
    const t = await testInstance({ rateLimit: { clientAddress: () => undefined } });
    await failTimes(t, 5);
    expect((await t.gatehouse.fetch(login('demo', 'demo-password', 'ignored'))).status).toBe(429);
    expect((await t.gatehouse.fetch(login('other', 'x', 'ignored'))).status).toBe(401);
  });

  it('does not check the password at all while blocked', async () => {
    const users = await countingUsers();
    const t = await testInstance({ users, rateLimit });
    await failTimes(t, 5);
    await t.gatehouse.fetch(login('demo', 'demo-password'));
    expect(users.verifications).toBe(5);
  });

  it('lets no more than the limit through when many guesses arrive at once', async () => {
    const users = await countingUsers();
    const t = await testInstance({ users, rateLimit });
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) => t.gatehouse.fetch(login('demo', `guess-${i}`))),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(35);
    expect(users.verifications).toBe(5);
  });

  it('lets no more than the per-address limit through when guesses for many usernames arrive at once', async () => {
    const t = await testInstance({ rateLimit: { ...rateLimit, maxFailuresPerAddress: 5 } });
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) => t.gatehouse.fetch(login(`user-${i}`, `guess-${i}`))),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(35);
  });

  it('does not count successful logins against the address (many users behind one NAT)', async () => {
    const t = await testInstance({ rateLimit: { ...rateLimit, maxFailuresPerAddress: 3 } });
    for (let i = 0; i < 10; i++)
      expect((await t.gatehouse.fetch(login('demo', 'demo-password'))).status).toBe(200);
    await failTimes(t, 1, 'someone');
    await failTimes(t, 1, 'someone-else');
    await failTimes(t, 1, 'another');
    expect((await t.gatehouse.fetch(login('demo', 'demo-password'))).status).toBe(429);
  });

  it('reports rate-limited attempts to onEvent', async () => {
    const events: GatehouseEvent[] = [];
    const t = await testInstance({ rateLimit, onEvent: (event) => events.push(event) });
    await failTimes(t, 5);
    await t.gatehouse.fetch(login('demo', 'demo-password'));
    expect(events.at(-1)).toEqual({ type: 'login.rate_limited', username: 'demo', via: 'auth-api' });
  });
});
