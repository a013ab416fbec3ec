import { type GatehouseEvent, memoryUserStore, type UserStore } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { ISSUER, testHasher, testInstance, userBasic } from '../../test/fixtures';
import { recordingRateLimits } from '../../test/recording-kv';

// The brute-force policy of password checks, exercised through the Auth API token endpoint.

const ADDRESS_HEADER = 'x-test-address';
const rateLimit = { clientAddress: (request: Request) => request.headers.get(ADDRESS_HEADER) ?? undefined };

function login(username: string, password: string, address = '192.0.2.1', init: RequestInit = {}): Request {
  return new Request(`${ISSUER}/auth/v1/token`, {
    method: 'POST',
    headers: { Authorization: userBasic(username, password), [ADDRESS_HEADER]: address },
    ...init,
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

/** How many of `attempts` (sent one after the other) get through before the first 429. */
async function untilRefused(
  t: Awaited<ReturnType<typeof testInstance>>,
  attempts: (i: number) => Request,
  max = 1000,
): Promise<number> {
  for (let i = 0; i < max; i++) {
    const response = await t.gatehouse.fetch(attempts(i));
    if (response.status === 429) return i;
  }
  return max;
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
    // The window slides: the six failures fade over the next window, and one more attempt fits
    // once they weigh five (one sixth into it): 900 s + 150 s.
    expect(blocked.headers.get('retry-after')).toBe('1050');
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

  it('counts requests without a client address in one shared bucket, limited like an address', async () => {
    const t = await testInstance({ rateLimit: { clientAddress: () => undefined, maxFailuresPerAddress: 6 } });
    await failTimes(t, 5, 'demo');
    expect((await t.gatehouse.fetch(login('demo', 'demo-password'))).status).toBe(429);
    await failTimes(t, 1, 'someone');
    // A third username is refused: an unknown address is never a more lenient bucket.
    expect((await t.gatehouse.fetch(login('someone-else', 'x'))).status).toBe(429);
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

  it('lets a new window start with the failures of the last one still counting, fading', async () => {
    const t = await testInstance({ rateLimit: { ...rateLimit, maxFailuresPerAddress: 10 } });
    await failTimes(t, 1, 'user-0');
    t.clock.advance(890); // ten failures in one window, most at its very end...
    for (let i = 1; i < 10; i++) await failTimes(t, 1, `user-${i}`);
    t.clock.advance(15); // ...are not forgotten just because the next one began
    expect((await t.gatehouse.fetch(login('user-x', 'guess'))).status).toBe(429);
    t.clock.advance(90); // a tenth of the way in, they weigh nine: one more guess fits
    expect((await t.gatehouse.fetch(login('user-x', 'guess'))).status).toBe(401);
    expect((await t.gatehouse.fetch(login('user-y', 'guess'))).status).toBe(429);
  });

  it('counts only failures against the address: successes in an earlier window do not buy later guesses', async () => {
    // Issue 23, item 4: one failure at t=0, 200 logins of one's own account at t=600 s, then
    // distinct-username guesses at t=905 s. Every success refunds its own attempt, nothing more.
    const t = await testInstance({ rateLimit });
    await failTimes(t, 1, 'someone');
    t.clock.advance(600);
    for (let i = 0; i < 200; i++)
      expect((await t.gatehouse.fetch(login('demo', 'demo-password'))).status).toBe(200);
    t.clock.advance(305);
    const passed = await untilRefused(t, (i) => login(`guess-${i}`, 'guess'));
    expect(passed).toBeLessThanOrEqual(50);
    expect(passed).toBeGreaterThanOrEqual(48); // the old failure still weighs a little
  });
});

describe('password attempt limiter storage', () => {
  it('writes nothing for an attempt it refuses, so refusals cannot grow the store', async () => {
    const { kv, keys } = recordingRateLimits();
    const t = await testInstance({ rateLimit, storage: { kv } });
    for (let i = 0; i < 50; i++) await failTimes(t, 1, `user-${i}`);
    const written = keys.size;
    for (let i = 0; i < 500; i++) {
      expect((await t.gatehouse.fetch(login(`other-${i}`, 'guess'))).status).toBe(429);
    }
    expect(keys.size).toBe(written);
  });

  it('keys counters by fixed-size digests, never by the username or the address', async () => {
    const { kv, keys } = recordingRateLimits();
    const t = await testInstance({ rateLimit, storage: { kv } });
    // U+FDFA is one character that NFKC expands to eighteen.
    const longName = '\uFDFA'.repeat(256);
    const longAddress = `203.0.113.${'9'.repeat(10_000)}`;
    await failTimes(t, 1, longName);
    await failTimes(t, 1, 'demo', longAddress);
    expect(keys.size).toBeGreaterThan(0);
    const lengths = new Set([...keys].map((key) => key.replace(/:\d+$/, '').length));
    expect(Math.max(...lengths)).toBeLessThanOrEqual(64);
    for (const key of keys) {
      expect(key).not.toContain('\uFDFA');
      expect(key).not.toContain('demo');
      expect(key).not.toContain('203.0.113');
    }
  });

  it('counts an IPv6 client by its /64 network, and an IPv4-mapped one as its IPv4 address', async () => {
    const t = await testInstance({ rateLimit: { ...rateLimit, maxFailuresPerAddress: 3 } });
    await failTimes(t, 1, 'a', '2001:db8:1:2::1');
    await failTimes(t, 1, 'b', '2001:db8:1:2:ffff:ffff:ffff:fffe');
    await failTimes(t, 1, 'c', '2001:0DB8:0001:0002:0:0:0:7');
    expect((await t.gatehouse.fetch(login('d', 'x', '2001:db8:1:2:abcd::9'))).status).toBe(429);
    expect((await t.gatehouse.fetch(login('d', 'x', '2001:db8:1:3::1'))).status).toBe(401);

    await failTimes(t, 3, 'e', '::ffff:198.51.100.4');
    expect((await t.gatehouse.fetch(login('f', 'x', '198.51.100.4'))).status).toBe(429);
    expect((await t.gatehouse.fetch(login('f', 'x', '::ffff:198.51.100.5'))).status).toBe(401);
  });
});
