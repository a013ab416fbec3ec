import type { CaseContext } from './conformance-api.js';
import { baseTime, freshHash, freshId, sessionRecord } from './records.js';

/** Sessions, consents and rate-limit windows: round trips, expiry, idempotent removal. */
export function sessionStoreCases({ api, storage }: CaseContext): void {
  const { describe, it, expect } = api;

  describe('sessions', () => {
    it('finds a created session until its expiresAt, and nothing for an unknown hash', async () => {
      const { sessions } = await storage();
      const now = baseTime();
      const session = await sessionRecord(now);
      await sessions.createSession(session);
      expect(await sessions.findSession(session.idHash, now)).toEqual(session);
      expect(await sessions.findSession(session.idHash, session.expiresAt - 1)).toEqual(session);
      expect(await sessions.findSession(session.idHash, session.expiresAt)).toBeNull();
      expect(await sessions.findSession(await freshHash(), now)).toBeNull();
    });

    it('records activity with touch, and ignores a touch of a missing session', async () => {
      const { sessions } = await storage();
      const now = baseTime();
      const session = await sessionRecord(now);
      await sessions.createSession(session);
      await sessions.touchSession(session.idHash, now + 5_000);
      expect(await sessions.findSession(session.idHash, now + 5_000)).toEqual({
        ...session,
        lastSeenAt: now + 5_000,
      });

      const missing = await freshHash();
      await sessions.touchSession(missing, now);
      expect(await sessions.findSession(missing, now)).toBeNull();
    });

    it('deletes a session, idempotently, without touching others', async () => {
      const { sessions } = await storage();
      const now = baseTime();
      const session = await sessionRecord(now);
      const other = await sessionRecord(now, { userId: session.userId });
      await sessions.createSession(session);
      await sessions.createSession(other);
      await sessions.deleteSession(session.idHash);
      await sessions.deleteSession(session.idHash);
      expect(await sessions.findSession(session.idHash, now)).toBeNull();
      expect(await sessions.findSession(other.idHash, now)).toEqual(other);
    });
  });

  describe('consents', () => {
    it('saves, replaces and expires the consent of one user for one client', async () => {
      const { consents } = await storage();
      const now = baseTime();
      const userId = freshId('user');
      expect(await consents.findConsent(userId, 'client-a', now)).toBeNull();
      await consents.saveConsent({ userId, clientId: 'client-a', scope: 'read', expiresAt: now + 60_000 });
      const widened = { userId, clientId: 'client-a', scope: 'read write', expiresAt: now + 120_000 };
      await consents.saveConsent(widened);
      expect(await consents.findConsent(userId, 'client-a', now)).toEqual(widened);
      expect(await consents.findConsent(userId, 'client-a', now + 119_999)).toEqual(widened);
      expect(await consents.findConsent(userId, 'client-a', now + 120_000)).toBeNull();
    });

    it('keeps consents of different (user, client) pairs apart, even when their ids run together', async () => {
      const { consents } = await storage();
      const now = baseTime();
      const user = freshId('user');
      const first = { userId: `${user}:a`, clientId: 'b', scope: 'read', expiresAt: now + 60_000 };
      const second = { userId: user, clientId: 'a:b', scope: 'write', expiresAt: now + 60_000 };
      await consents.saveConsent(first);
      await consents.saveConsent(second);
      expect(await consents.findConsent(first.userId, first.clientId, now)).toEqual(first);
      expect(await consents.findConsent(second.userId, second.clientId, now)).toEqual(second);
      expect(await consents.findConsent(user, 'b', now)).toBeNull();
    });
  });

  describe('rate limits', () => {
    it('counts within a fixed window and starts a new one when it ends', async () => {
      const { rateLimits } = await storage();
      const now = baseTime();
      const key = `conformance:${crypto.randomUUID()}`;
      expect(await rateLimits.get(key, now)).toBeNull();
      expect(await rateLimits.increment(key, 10_000, now)).toEqual({ count: 1, resetAt: now + 10_000 });
      expect(await rateLimits.increment(key, 10_000, now + 4_000)).toEqual({
        count: 2,
        resetAt: now + 10_000,
      });
      expect(await rateLimits.get(key, now + 9_999)).toEqual({ count: 2, resetAt: now + 10_000 });
      expect(await rateLimits.get(key, now + 10_000)).toBeNull();
      expect(await rateLimits.increment(key, 10_000, now + 10_000)).toEqual({
        count: 1,
        resetAt: now + 20_000,
      });
    });

    it('resets one key, idempotently, without touching others', async () => {
      const { rateLimits } = await storage();
      const now = baseTime();
      const key = `conformance:${crypto.randomUUID()}`;
      const other = `${key}:other`;
      await rateLimits.increment(key, 10_000, now);
      await rateLimits.increment(other, 10_000, now);
      await rateLimits.reset(key);
      await rateLimits.reset(key);
      expect(await rateLimits.get(key, now)).toBeNull();
      expect(await rateLimits.get(other, now)).toEqual({ count: 1, resetAt: now + 10_000 });
    });
  });
}
