import type { UserRecord, UserStore } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { authorizeUrl, FakeBrowser } from '../../test/browser-flow';
import { ISSUER, testInstance, userBasic } from '../../test/fixtures';

// The bound on password checks in flight: at most `passwordChecks.maxConcurrent` at once, then a
// queue of `passwordChecks.maxQueued`, then 503 with Retry-After. Exercised with a user store whose
// checks finish only when the test says so.

const ADDRESS_HEADER = 'x-test-address';
const rateLimit = { clientAddress: (request: Request) => request.headers.get(ADDRESS_HEADER) ?? undefined };

/** A user store whose password checks wait until `release()`; counts them and the most at once. */
function heldUsers() {
  let running = 0;
  let waiting: (() => void)[] = [];
  const state = { started: 0, mostAtOnce: 0 };
  const users: UserStore = {
    async verifyPassword(username, password) {
      state.started++;
      running++;
      state.mostAtOnce = Math.max(state.mostAtOnce, running);
      await new Promise<void>((resolve) => waiting.push(resolve));
      running--;
      return username === 'demo' && password === 'demo-password' ? { id: 'user-1' } : null;
    },
    findUser: async (id): Promise<UserRecord | null> => (id === 'user-1' ? { id } : null),
  };
  return {
    users,
    state,
    /** Lets every check started so far finish. */
    release() {
      const now = waiting;
      waiting = [];
      for (const resolve of now) resolve();
    },
  };
}

/** Each attempt from its own address, so that the rate limiter stays out of the way. */
function attempt(i: number, init: RequestInit = {}, password = 'wrong'): Request {
  return new Request(`${ISSUER}/auth/v1/token`, {
    method: 'POST',
    headers: { Authorization: userBasic('demo', password), [ADDRESS_HEADER]: `198.51.100.${i}` },
    ...init,
  });
}

/** Waits until `condition()` holds, turning the event loop (checks start asynchronously). */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 1));
  expect(condition()).toBe(true);
}

describe('password checks in flight', () => {
  it('runs at most 4 at once, queues 32 more, and answers the rest 503 with Retry-After at once', async () => {
    const held = heldUsers();
    const t = await testInstance({ users: held.users, rateLimit });
    const pending = Array.from({ length: 36 }, (_, i) => t.gatehouse.fetch(attempt(i)));
    await until(() => held.state.started === 4);
    const refused = await t.gatehouse.fetch(attempt(200));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({ error: 'temporarily_unavailable' });
    for (let round = 0; round < 9; round++) {
      held.release();
      await until(() => held.state.started === Math.min(36, 4 * (round + 2)));
    }
    held.release();
    const statuses = (await Promise.all(pending)).map((response) => response.status);
    expect(statuses).toEqual(Array(36).fill(401));
    expect(held.state.mostAtOnce).toBe(4);
  });

  it('does not charge a refused attempt: once the queue drains, the same address is checked again', async () => {
    const held = heldUsers();
    const t = await testInstance({
      users: held.users,
      rateLimit: { ...rateLimit, maxFailuresPerAddress: 1 },
      passwordChecks: { maxConcurrent: 1, maxQueued: 0 },
    });
    const first = t.gatehouse.fetch(attempt(1));
    await until(() => held.state.started === 1);
    for (let i = 0; i < 5; i++) expect((await t.gatehouse.fetch(attempt(2))).status).toBe(503);
    held.release();
    expect((await first).status).toBe(401);
    const again = t.gatehouse.fetch(attempt(2, {}, 'demo-password'));
    await until(() => held.state.started === 2);
    held.release();
    expect((await again).status).toBe(200);
  });

  it('skips the check of a queued attempt whose client went away, freeing its place', async () => {
    const held = heldUsers();
    const t = await testInstance({
      users: held.users,
      rateLimit,
      passwordChecks: { maxConcurrent: 1, maxQueued: 1 },
    });
    const first = t.gatehouse.fetch(attempt(1));
    await until(() => held.state.started === 1);
    const client = new AbortController();
    const gone = t.gatehouse.fetch(attempt(2, { signal: client.signal }));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await t.gatehouse.fetch(attempt(3))).status).toBe(503); // the queue is full...
    client.abort();
    const next = t.gatehouse.fetch(attempt(4)); // ...until the departed client leaves it
    held.release();
    await first;
    await gone;
    await until(() => held.state.started === 2);
    held.release();
    expect((await next).status).toBe(401);
    expect(held.state.started).toBe(2);
  });

  it('never checks the password of a request whose client is already gone, but still counts it', async () => {
    const held = heldUsers();
    const t = await testInstance({
      users: held.users,
      rateLimit: { ...rateLimit, maxFailuresPerAddress: 3 },
    });
    for (let i = 0; i < 3; i++) {
      const client = new AbortController();
      client.abort();
      await t.gatehouse.fetch(attempt(7, { signal: client.signal }));
    }
    expect(held.state.started).toBe(0);
    // The address was charged for them: a fourth attempt from it is refused.
    expect((await t.gatehouse.fetch(attempt(7, {}, 'demo-password'))).status).toBe(429);
  });

  it('shows the login form again with 503 and Retry-After when too many checks are waiting', async () => {
    const held = heldUsers();
    const t = await testInstance({
      users: held.users,
      rateLimit,
      passwordChecks: { maxConcurrent: 1, maxQueued: 0 },
    });
    const busy = t.gatehouse.fetch(attempt(1));
    await until(() => held.state.started === 1);
    const browser = new FakeBrowser(t.gatehouse);
    const page = await (await browser.get(authorizeUrl())).text();
    const response = await browser.submit(page, { username: 'demo', password: 'demo-password' });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    const html = await response.text();
    expect(html).toContain('name="password"');
    expect(html).toMatch(/busy/i);
    expect(browser.session()).toBeUndefined();
    held.release();
    await busy;
  });

  it('rejects limits that are not whole numbers', async () => {
    await expect(testInstance({ passwordChecks: { maxConcurrent: 0 } })).rejects.toThrow(
      /passwordChecks\.maxConcurrent/,
    );
    await expect(testInstance({ passwordChecks: { maxQueued: -1 } })).rejects.toThrow(
      /passwordChecks\.maxQueued/,
    );
  });
});
