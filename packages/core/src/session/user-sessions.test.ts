import { type GatehouseEvent, memoryUserStore } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { authorizeUrl, FakeBrowser, signIn } from '../../test/browser-flow';
import { ISSUER, type TestOptions, testHasher, testInstance } from '../../test/fixtures';

/** An instance with two users (`demo` = user-1, `other` = user-2), its events collected. */
async function instance(options: TestOptions = {}) {
  const events: GatehouseEvent[] = [];
  const users = memoryUserStore(
    [
      { id: 'user-1', username: 'demo', passwordHash: await testHasher.hash('demo-password') },
      { id: 'user-2', username: 'other', passwordHash: await testHasher.hash('other-password') },
    ],
    { hasher: testHasher },
  );
  const t = await testInstance({ ...options, users, onEvent: (event) => events.push(event) });
  return { ...t, events };
}

type Instance = Awaited<ReturnType<typeof instance>>;

/** A browser signed in through the login page. */
async function signedIn(t: Instance, username = 'demo', password = 'demo-password'): Promise<FakeBrowser> {
  const browser = new FakeBrowser(t.gatehouse);
  const response = await signIn(browser, authorizeUrl(), username, password);
  expect(response.status).toBe(303);
  return browser;
}

/** Whether the browser's session cookie still signs it in (the session scheme of the instance). */
async function sessionWorks(t: Instance, browser: FakeBrowser): Promise<boolean> {
  const cookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  const request = new Request(`${ISSUER}/api/me`, { headers: { cookie } });
  return (await t.gatehouse.authenticate(request, { schemes: ['session'] })).ok;
}

describe('gatehouse.listSessions', () => {
  it("lists each of a user's live sessions once, most recently active first, and no other user's", async () => {
    const t = await instance();
    const laptop = await signedIn(t);
    t.clock.advance(120);
    await signedIn(t); // the phone
    await signedIn(t, 'other', 'other-password');

    const sessions = await t.gatehouse.listSessions('user-1');
    expect(sessions).toHaveLength(2);
    expect(new Set(sessions.map((s) => s.sessionId)).size).toBe(2);
    expect(sessions[0]!.createdAt).toBeGreaterThan(sessions[1]!.createdAt);
    // The idle timeout (30 min by default) from the last activity.
    expect(sessions[0]!.expiresAt).toBe(sessions[0]!.lastSeenAt + 1800_000);

    // Activity on the laptop (touched after a minute) puts it first.
    t.clock.advance(120);
    expect(await sessionWorks(t, laptop)).toBe(true);
    const after = await t.gatehouse.listSessions('user-1');
    expect(after[0]!.lastSeenAt).toBe(t.clock.now());
    expect(after[0]!.sessionId).toBe(sessions[1]!.sessionId);

    expect(await t.gatehouse.listSessions('user-2')).toHaveLength(1);
    expect(await t.gatehouse.listSessions('nobody')).toEqual([]);
  });

  it('no longer lists a session ended by logout, idleness or revokeUser', async () => {
    const t = await instance();
    const browser = await signedIn(t);
    await signedIn(t);
    const logout = await browser.fetch(`${ISSUER}/logout`, {
      method: 'POST',
      headers: { Origin: 'http://localhost:3000', 'Sec-Fetch-Site': 'same-origin' },
    });
    expect(logout.status).toBeLessThan(400);
    expect(await t.gatehouse.listSessions('user-1')).toHaveLength(1);

    t.clock.advance(1801); // idle past the 30-minute timeout
    expect(await t.gatehouse.listSessions('user-1')).toEqual([]);

    await signedIn(t);
    expect(await t.gatehouse.listSessions('user-1')).toHaveLength(1);
    t.clock.advance(1);
    await t.gatehouse.revokeUser('user-1');
    expect(await t.gatehouse.listSessions('user-1')).toEqual([]);
  });

  it('keeps at most the 50 most recent sign-ins of a user, ended sessions leaving first', async () => {
    // 52 sign-ins from one address in under a minute: more than one address's share of interactions.
    const t = await instance({ interactions: { maxPerNetwork: 60 } });
    for (let i = 0; i < 52; i++) {
      await signedIn(t);
      t.clock.advance(1);
    }
    const sessions = await t.gatehouse.listSessions('user-1');
    expect(sessions).toHaveLength(50);
    // The two oldest sign-ins left the index; the newest is there.
    expect(Math.min(...sessions.map((s) => s.createdAt))).toBe(t.clock.now() - 50_000);
  });

  it('refuses an empty user id with a TypeError naming the call', async () => {
    const t = await instance();
    await expect(t.gatehouse.listSessions('')).rejects.toThrow(
      /listSessions: userId must be a non-empty string/,
    );
    await expect(t.gatehouse.revokeSession('user-1', '')).rejects.toThrow(/revokeSession: sessionId/);
  });
});

describe('gatehouse.revokeSession', () => {
  it('ends that session at once, leaves the others, and emits session.revoked', async () => {
    const t = await instance();
    const laptop = await signedIn(t);
    t.clock.advance(1);
    const phone = await signedIn(t);
    const [newest, oldest] = await t.gatehouse.listSessions('user-1');

    expect(await t.gatehouse.revokeSession('user-1', oldest!.sessionId)).toBe(true);
    expect(await sessionWorks(t, laptop)).toBe(false);
    expect(await sessionWorks(t, phone)).toBe(true);
    expect((await t.gatehouse.listSessions('user-1')).map((s) => s.sessionId)).toEqual([newest!.sessionId]);
    expect(t.events).toContainEqual({
      type: 'session.revoked',
      userId: 'user-1',
      sessionId: oldest!.sessionId,
    });

    // Already ended: nothing changes.
    expect(await t.gatehouse.revokeSession('user-1', oldest!.sessionId)).toBe(false);
    // The laptop's browser is sent to the login page again.
    expect((await laptop.get(authorizeUrl())).status).toBe(200);
  });

  it("changes nothing for another user's session id or an unknown one", async () => {
    const t = await instance();
    const browser = await signedIn(t);
    const [session] = await t.gatehouse.listSessions('user-1');
    expect(await t.gatehouse.revokeSession('user-2', session!.sessionId)).toBe(false);
    expect(await t.gatehouse.revokeSession('user-1', 'no-such-session')).toBe(false);
    expect(await sessionWorks(t, browser)).toBe(true);
    expect(t.events.filter((e) => e.type === 'session.revoked')).toEqual([]);
  });
});
