import { afterAll, describe, expect, it } from 'vitest';
import {
  authorizeUrl,
  FakeBrowser,
  signIn as signInAndResume,
} from '../../../packages/core/test/browser-flow';
import { ISSUER, testInstance } from '../../../packages/core/test/fixtures';
import { storageEngines } from '../test/storage-engines';

/**
 * Issue 32: `listSessions` / `revokeSession` on every engine. The per-user session index lives in
 * the key-value store (`storage.kv`), so each engine's `add` / `swap` carry it: sign-ins through
 * the login page, listed and ended one by one, on memory always and on Redis and PostgreSQL when
 * REDIS_URL / DATABASE_URL are set.
 */

const { engines, cleanUp } = storageEngines('gatehouse_sessions');
afterAll(cleanUp);

describe.each(engines)('the sessions of a user, on the %s engine', (_name, createStorage) => {
  it('are listed once each, and one ends without the others; concurrent sign-ins are all indexed', async () => {
    // The real clock: Redis expires key-value entries at their absolute time by its own clock
    // (PEXPIREAT), so the fixtures' clock in the past would expire the index at once.
    const t = await testInstance({ storage: await createStorage(), now: () => Date.now() });
    const signIn = async () => {
      const browser = new FakeBrowser(t.gatehouse);
      expect((await signInAndResume(browser, authorizeUrl())).status).toBe(303); // the resume, to the client
      return browser;
    };
    const works = async (browser: FakeBrowser) => {
      const cookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
      const request = new Request(`${ISSUER}/api/me`, { headers: { cookie } });
      return (await t.gatehouse.authenticate(request, { schemes: ['session'] })).ok;
    };

    const first = await signIn();
    await new Promise((resolve) => setTimeout(resolve, 5)); // a later sign-in time for the others
    // Five sign-ins at once: every index update is a compare-and-set, none may be lost.
    const others = await Promise.all(Array.from({ length: 5 }, signIn));
    const sessions = await t.gatehouse.listSessions('user-1');
    expect(sessions).toHaveLength(6);
    expect(new Set(sessions.map((s) => s.sessionId)).size).toBe(6);

    const oldest = sessions.reduce((a, b) => (a.createdAt <= b.createdAt ? a : b));
    expect(await t.gatehouse.revokeSession('user-1', oldest.sessionId)).toBe(true);
    expect(await works(first)).toBe(false);
    for (const browser of others) expect(await works(browser)).toBe(true);
    expect(await t.gatehouse.listSessions('user-1')).toHaveLength(5);
    expect(await t.gatehouse.revokeSession('user-1', oldest.sessionId)).toBe(false);
  });
});
