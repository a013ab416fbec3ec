import type { GrantStore } from '../storage/types.js';
import type { CaseContext } from './conformance-api.js';
import { baseTime, codeRecord, freshId, KEEP_CONSUMED_CODE_MS, refreshRecord } from './records.js';
import { optionalCase, type SkipCase } from './skip.js';

/**
 * A user's revocation mark (`revokeSubject`, written by `gatehouse.revokeUser`): everything issued
 * to the user at or before the mark stops working (access tokens through `isRevoked`, refresh
 * tokens and codes in their lookups and atomic steps), nothing issued after it or to anyone else
 * does. The methods are optional: for an engine with neither, these cases are skipped (with the
 * reason); one with only one of them fails.
 */
export function subjectRevocationCases({ api, storage }: CaseContext): void {
  const { describe, expect } = api;

  /** The store's mark methods; the case is skipped for an engine without them (checked to be consistent). */
  const marksOf = async (skip: SkipCase) => {
    const { grants } = await storage();
    expect(typeof grants.revokeSubject).toBe(typeof grants.subjectRevokedAt);
    if (!grants.revokeSubject || !grants.subjectRevokedAt) {
      skip('the grant store has no revokeSubject / subjectRevokedAt (user marks, optional)');
    }
    return grants as Required<GrantStore>;
  };

  describe('user revocation marks', () => {
    optionalCase(
      api,
      "revokes the user's access tokens issued at or before the mark, and nothing else",
      async (skip) => {
        const grants = await marksOf(skip);
        const now = baseTime();
        const userId = freshId('user');
        const grantId = freshId('grant');
        expect(await grants.isRevoked(freshId('jti'), grantId, now, userId, now - 1000)).toBe(false);
        expect(await grants.subjectRevokedAt(userId, now)).toBeNull();

        await grants.revokeSubject(userId, now, now + 3_600_000);
        expect(await grants.isRevoked(freshId('jti'), grantId, now + 1, userId, now - 1000)).toBe(true);
        expect(await grants.isRevoked(freshId('jti'), undefined, now + 1, userId, now - 1000)).toBe(true);
        // At the mark itself counts as before it.
        expect(await grants.isRevoked(freshId('jti'), undefined, now + 1, userId, now)).toBe(true);
        expect(await grants.isRevoked(freshId('jti'), grantId, now + 1, userId, now + 1)).toBe(false);
        expect(await grants.isRevoked(freshId('jti'), grantId, now + 1, freshId('user'), now - 1000)).toBe(
          false,
        );
        expect(await grants.isRevoked(freshId('jti'), grantId, now + 1)).toBe(false);
        expect(await grants.subjectRevokedAt(userId, now + 1)).toBe(now);
        expect(await grants.subjectRevokedAt(freshId('user'), now + 1)).toBeNull();
      },
    );

    optionalCase(
      api,
      "refuses the user's codes and refresh tokens issued at or before the mark, in the atomic steps too",
      async (skip) => {
        const grants = await marksOf(skip);
        const now = baseTime();
        const userId = freshId('user');
        const oldCode = await codeRecord(now - 10, { userId });
        const newCode = await codeRecord(now + 1, { userId });
        const oldToken = await refreshRecord(now - 10, { subject: { kind: 'user', userId } });
        const newToken = await refreshRecord(now + 1, { subject: { kind: 'user', userId } });
        const otherToken = await refreshRecord(now - 10);
        for (const code of [oldCode, newCode]) await grants.saveCode(code);
        for (const token of [oldToken, newToken, otherToken]) await grants.saveRefreshToken(token);

        await grants.revokeSubject(userId, now, now + 3_600_000);
        const at = now + 2;
        expect(await grants.findCode(oldCode.codeHash, at)).toBeNull();
        const fromOld = await refreshRecord(at, {
          subject: { kind: 'user', userId },
          grantId: oldCode.grantId,
        });
        expect(await grants.redeemCode(oldCode.codeHash, fromOld, at, at + KEEP_CONSUMED_CODE_MS)).toEqual({
          status: 'invalid',
        });
        expect(await grants.findRefreshToken(fromOld.tokenHash, at)).toBeNull();
        expect(await grants.findRefreshToken(oldToken.tokenHash, at)).toBeNull();
        const rotatedOld = await refreshRecord(at, {
          subject: { kind: 'user', userId },
          grantId: oldToken.grantId,
        });
        expect(await grants.rotateRefreshToken(oldToken.tokenHash, rotatedOld, at)).toEqual({
          status: 'invalid',
        });
        expect(await grants.findRefreshToken(rotatedOld.tokenHash, at)).toBeNull();

        // Issued after the mark, or to another user: untouched.
        expect(await grants.findCode(newCode.codeHash, at)).toEqual(newCode);
        const fromNew = await refreshRecord(at, {
          subject: { kind: 'user', userId },
          grantId: newCode.grantId,
        });
        const redeemed = await grants.redeemCode(newCode.codeHash, fromNew, at, at + KEEP_CONSUMED_CODE_MS);
        expect(redeemed.status).toBe('redeemed');
        expect(await grants.findRefreshToken(newToken.tokenHash, at)).toEqual(newToken);
        const rotatedNew = await refreshRecord(at, {
          subject: { kind: 'user', userId },
          grantId: newToken.grantId,
        });
        expect((await grants.rotateRefreshToken(newToken.tokenHash, rotatedNew, at)).status).toBe('rotated');
        expect(await grants.findRefreshToken(otherToken.tokenHash, at)).toEqual(otherToken);
      },
    );

    optionalCase(
      api,
      'keeps the later mark and the later expiry, and forgets the mark from its expiresAt on',
      async (skip) => {
        const grants = await marksOf(skip);
        const now = baseTime();
        const userId = freshId('user');
        await grants.revokeSubject(userId, now, now + 60_000);
        await grants.revokeSubject(userId, now - 5_000, now + 1_000);
        expect(await grants.subjectRevokedAt(userId, now + 1)).toBe(now);
        await grants.revokeSubject(userId, now + 10, now + 30_000);
        expect(await grants.subjectRevokedAt(userId, now + 11)).toBe(now + 10);
        expect(await grants.isRevoked(freshId('jti'), undefined, now + 59_999, userId, now + 10)).toBe(true);
        expect(await grants.isRevoked(freshId('jti'), undefined, now + 60_000, userId, now + 10)).toBe(false);
        expect(await grants.subjectRevokedAt(userId, now + 60_000)).toBeNull();
      },
    );

    optionalCase(api, 'rounds a fractional mark towards revoking', async (skip) => {
      const grants = await marksOf(skip);
      const now = baseTime();
      const userId = freshId('user');
      const token = await refreshRecord(now + 0.25, { subject: { kind: 'user', userId } });
      await grants.saveRefreshToken(token);
      await grants.revokeSubject(userId, now + 0.5, now + 60_000.5);
      expect(await grants.findRefreshToken(token.tokenHash, now + 1)).toBeNull();
      expect(await grants.isRevoked(freshId('jti'), undefined, now + 1, userId, now + 0.25)).toBe(true);
    });
  });
}
