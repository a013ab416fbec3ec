import type { CaseContext } from './conformance-api.js';
import { baseTime, codeRecord, KEEP_CONSUMED_CODE_MS, refreshRecord, sessionRecord } from './records.js';

/**
 * Inputs at the edge of the contract: times with a fractional millisecond (a `now` clock built on
 * `performance.now()`, a computed expiry) and saves under a hash that is already stored. Engines
 * with integer columns or integer-only commands must round, not fail (a failure here is a 503, and
 * a failure midway through a consume would leave half of it written).
 */
export function boundaryCases({ api, storage }: CaseContext): void {
  const { describe, it, expect } = api;

  describe('boundary inputs', () => {
    it('accepts fractional times in every call and completes each step whole', async () => {
      const { grants, sessions, rateLimits } = await storage();
      const now = baseTime() + 0.5;

      const code = await codeRecord(baseTime(), { expiresAt: baseTime() + 60_000.25 });
      await grants.saveCode(code);
      expect((await grants.findCode(code.codeHash, now))?.codeHash).toBe(code.codeHash);
      const first = await refreshRecord(baseTime(), {
        grantId: code.grantId,
        expiresAt: now + 3_600_000.7,
      });
      const redeemed = await grants.redeemCode(code.codeHash, first, now, now + KEEP_CONSUMED_CODE_MS + 0.3);
      expect(redeemed.status).toBe('redeemed');
      expect((await grants.findRefreshToken(first.tokenHash, now))?.tokenHash).toBe(first.tokenHash);

      const next = await refreshRecord(baseTime(), { grantId: code.grantId, expiresAt: now + 1000.5 });
      expect((await grants.rotateRefreshToken(first.tokenHash, next, now)).status).toBe('rotated');
      expect((await grants.findRefreshToken(next.tokenHash, now))?.tokenHash).toBe(next.tokenHash);

      await grants.revokeAccessToken('jti-fraction', now + 60_000.5);
      expect(await grants.isRevoked('jti-fraction', undefined, now)).toBe(true);

      const session = await sessionRecord(baseTime(), { expiresAt: now + 60_000.5 });
      await sessions.createSession(session);
      await sessions.touchSession(session.idHash, now + 1.25);
      expect((await sessions.findSession(session.idHash, now + 2.5))?.idHash).toBe(session.idHash);

      const key = `fraction-${session.idHash}`;
      expect((await rateLimits.increment(key, 10_000.5, now)).count).toBe(1);
      expect((await rateLimits.increment(key, 10_000.5, now + 0.25)).count).toBe(2);
    });

    it('replaces a code, refresh token or session saved again under the same hash', async () => {
      const { grants, sessions } = await storage();
      const now = baseTime();

      const code = await codeRecord(now);
      await grants.saveCode(code);
      const replacedCode = { ...code, scope: 'other', expiresAt: now + 30_000 };
      await grants.saveCode(replacedCode);
      expect(await grants.findCode(code.codeHash, now)).toEqual(replacedCode);

      const refresh = await refreshRecord(now);
      await grants.saveRefreshToken(refresh);
      const replacedRefresh = { ...refresh, scope: 'other' };
      await grants.saveRefreshToken(replacedRefresh);
      expect(await grants.findRefreshToken(refresh.tokenHash, now)).toEqual(replacedRefresh);

      const session = await sessionRecord(now);
      await sessions.createSession(session);
      const replacedSession = { ...session, userId: 'someone-else', lastSeenAt: now + 1000 };
      await sessions.createSession(replacedSession);
      expect(await sessions.findSession(session.idHash, now)).toEqual(replacedSession);
    });
  });
}
