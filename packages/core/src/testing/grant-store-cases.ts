import type { CaseContext } from './conformance-api.js';
import {
  baseTime,
  codeRecord,
  freshHash,
  freshId,
  KEEP_CONSUMED_CODE_MS,
  refreshRecord,
  withoutMarker,
} from './records.js';

/** Round trips, expiry, single use, rotation and revocation of the {@link GrantStore}. */
export function grantStoreCases({ api, storage }: CaseContext): void {
  const { describe, it, expect } = api;

  describe('authorization codes', () => {
    it('finds a saved code with every field intact, and nothing for an unknown hash', async () => {
      const { grants } = await storage();
      const now = baseTime();
      const code = await codeRecord(now);
      await grants.saveCode(code);
      expect(await grants.findCode(code.codeHash, now)).toEqual(code);
      expect(await grants.findCode(await freshHash(), now)).toBeNull();
    });

    it('keeps a code without a PKCE challenge without inventing one', async () => {
      const { grants } = await storage();
      const now = baseTime();
      const { codeChallenge: _, ...code } = await codeRecord(now);
      await grants.saveCode(code);
      const found = await grants.findCode(code.codeHash, now);
      expect(found).toEqual(code);
      expect(found?.codeChallenge).toBe(undefined);
    });

    it('treats a code as absent from its expiresAt on', async () => {
      const { grants } = await storage();
      const now = baseTime();
      const code = await codeRecord(now);
      await grants.saveCode(code);
      expect(await grants.findCode(code.codeHash, code.expiresAt - 1)).toEqual(code);
      expect(await grants.findCode(code.codeHash, code.expiresAt)).toBeNull();
      expect(
        await grants.redeemCode(code.codeHash, null, code.expiresAt, code.expiresAt + KEEP_CONSUMED_CODE_MS),
      ).toEqual({ status: 'invalid' });
      expect(await grants.findCode(code.codeHash, code.expiresAt)).toBeNull();
    });

    it('redeems a code once, storing its refresh token in the same step', async () => {
      const { grants } = await storage();
      const now = baseTime();
      const code = await codeRecord(now);
      await grants.saveCode(code);
      const refresh = await refreshRecord(now + 5, {
        grantId: code.grantId,
        subject: { kind: 'user', userId: code.userId },
      });
      expect(await grants.findRefreshToken(refresh.tokenHash, now + 5)).toBeNull();

      const keepUntil = now + 5 + KEEP_CONSUMED_CODE_MS;
      const result = await grants.redeemCode(code.codeHash, refresh, now + 5, keepUntil);
      const consumed = { ...code, consumedAt: now + 5, expiresAt: keepUntil };
      expect(result).toEqual({ status: 'redeemed', code: consumed });
      expect(await grants.findRefreshToken(refresh.tokenHash, now + 5)).toEqual(refresh);
      // Consumed codes are kept (until keepUntil) so that a replay is recognised.
      expect(await grants.findCode(code.codeHash, now + 6)).toEqual(consumed);
    });

    it('reports a second redemption as a replay and writes nothing for it', async () => {
      const { grants } = await storage();
      const now = baseTime();
      const code = await codeRecord(now);
      await grants.saveCode(code);
      const keepUntil = now + 1 + KEEP_CONSUMED_CODE_MS;
      await grants.redeemCode(code.codeHash, null, now + 1, keepUntil);
      const late = await refreshRecord(now + 2, { grantId: code.grantId });
      const replay = await grants.redeemCode(code.codeHash, late, now + 2, now + 2 + KEEP_CONSUMED_CODE_MS);
      const consumed = { ...code, consumedAt: now + 1, expiresAt: keepUntil };
      expect(replay).toEqual({ status: 'replayed', code: consumed });
      expect(await grants.findRefreshToken(late.tokenHash, now + 2)).toBeNull();
      // The replay neither moved consumedAt nor extended the record again.
      expect(await grants.findCode(code.codeHash, now + 3)).toEqual(consumed);
    });

    it('keeps a consumed code past its own expiry until keepUntil, so a late replay is recognised', async () => {
      const { grants } = await storage();
      const now = baseTime();
      const code = await codeRecord(now);
      await grants.saveCode(code);
      const keepUntil = now + 5 + KEEP_CONSUMED_CODE_MS;
      await grants.redeemCode(code.codeHash, null, now + 5, keepUntil);
      const consumed = { ...code, consumedAt: now + 5, expiresAt: keepUntil };

      // RFC 6749 §4.1.2: a replay after the code's original lifetime must still be seen as one.
      const afterLifetime = code.expiresAt + 1;
      expect(await grants.findCode(code.codeHash, afterLifetime)).toEqual(consumed);
      const late = await refreshRecord(afterLifetime, { grantId: code.grantId });
      expect(await grants.redeemCode(code.codeHash, late, afterLifetime, afterLifetime + 60_000)).toEqual({
        status: 'replayed',
        code: consumed,
      });
      expect(await grants.findRefreshToken(late.tokenHash, afterLifetime)).toBeNull();
      expect(await grants.findCode(code.codeHash, keepUntil - 1)).toEqual(consumed);

      // From keepUntil on, the consumed record is gone like any expired one.
      expect(await grants.findCode(code.codeHash, keepUntil)).toBeNull();
      expect(await grants.redeemCode(code.codeHash, null, keepUntil, keepUntil + 60_000)).toEqual({
        status: 'invalid',
      });
    });

    it('never shortens a code when redeemed with a keepUntil before its expiresAt', async () => {
      const { grants } = await storage();
      const now = baseTime();
      const code = await codeRecord(now);
      await grants.saveCode(code);
      const result = await grants.redeemCode(code.codeHash, null, now + 1, now + 2);
      const consumed = { ...code, consumedAt: now + 1 };
      expect(result).toEqual({ status: 'redeemed', code: consumed });
      expect(await grants.findCode(code.codeHash, code.expiresAt - 1)).toEqual(consumed);
      expect(await grants.findCode(code.codeHash, code.expiresAt)).toBeNull();
    });

    it('lets an unconsumed code expire at its original expiresAt', async () => {
      const { grants } = await storage();
      const now = baseTime();
      const code = await codeRecord(now);
      const sibling = await codeRecord(now, { grantId: code.grantId, userId: code.userId });
      await grants.saveCode(code);
      await grants.saveCode(sibling);
      // Redeeming one code of the grant extends that record only.
      await grants.redeemCode(code.codeHash, null, now + 1, now + 1 + KEEP_CONSUMED_CODE_MS);
      expect(await grants.findCode(sibling.codeHash, sibling.expiresAt - 1)).toEqual(sibling);
      expect(await grants.findCode(sibling.codeHash, sibling.expiresAt)).toBeNull();
      expect(
        await grants.redeemCode(
          sibling.codeHash,
          null,
          sibling.expiresAt,
          sibling.expiresAt + KEEP_CONSUMED_CODE_MS,
        ),
      ).toEqual({ status: 'invalid' });
    });

    it('answers invalid for an unknown code and writes no refresh token for it', async () => {
      const { grants } = await storage();
      const now = baseTime();
      const refresh = await refreshRecord(now);
      expect(await grants.redeemCode(await freshHash(), refresh, now, now + KEEP_CONSUMED_CODE_MS)).toEqual({
        status: 'invalid',
      });
      expect(await grants.findRefreshToken(refresh.tokenHash, now)).toBeNull();
    });
  });

  describe('refresh tokens', () => {
    it('finds a saved refresh token with every field intact until it expires', async () => {
      const { grants } = await storage();
      const now = baseTime();
      const token = await refreshRecord(now);
      await grants.saveRefreshToken(token);
      expect(await grants.findRefreshToken(token.tokenHash, now)).toEqual(token);
      expect(await grants.findRefreshToken(token.tokenHash, token.expiresAt - 1)).toEqual(token);
      expect(await grants.findRefreshToken(token.tokenHash, token.expiresAt)).toBeNull();
      expect(await grants.findRefreshToken(await freshHash(), now)).toBeNull();
    });

    it('rotates a token once: the old one is marked, the new one stored', async () => {
      const { grants } = await storage();
      const now = baseTime();
      const token = await refreshRecord(now);
      await grants.saveRefreshToken(token);
      const next = await refreshRecord(now + 10, { grantId: token.grantId, subject: token.subject });

      expect(await grants.rotateRefreshToken(token.tokenHash, next, now + 10)).toEqual({
        status: 'rotated',
        previous: token,
      });
      expect(await grants.findRefreshToken(token.tokenHash, now + 11)).toEqual({
        ...token,
        rotatedAt: now + 10,
      });
      expect(await grants.findRefreshToken(next.tokenHash, now + 11)).toEqual(next);
    });

    it('reports a rotated token presented again as reuse and writes nothing for it', async () => {
      const { grants } = await storage();
      const now = baseTime();
      const token = await refreshRecord(now);
      await grants.saveRefreshToken(token);
      await grants.rotateRefreshToken(
        token.tokenHash,
        await refreshRecord(now + 1, { grantId: token.grantId }),
        now + 1,
      );
      const late = await refreshRecord(now + 2, { grantId: token.grantId });
      const reuse = await grants.rotateRefreshToken(token.tokenHash, late, now + 2);
      expect(reuse.status).toBe('reused');
      if (reuse.status === 'reused') expect(withoutMarker(reuse.previous, 'rotatedAt')).toEqual(token);
      expect(await grants.findRefreshToken(late.tokenHash, now + 2)).toBeNull();
    });

    it('answers invalid when rotating an unknown or expired token, writing nothing', async () => {
      const { grants } = await storage();
      const now = baseTime();
      const token = await refreshRecord(now, { expiresAt: now + 1000 });
      await grants.saveRefreshToken(token);
      const next = await refreshRecord(now, { grantId: token.grantId });
      expect(await grants.rotateRefreshToken(await freshHash(), next, now)).toEqual({ status: 'invalid' });
      expect(await grants.findRefreshToken(next.tokenHash, now)).toBeNull();
      expect(await grants.findRefreshToken(token.tokenHash, now + 999)).toEqual(token);
      expect(await grants.rotateRefreshToken(token.tokenHash, next, now + 1000)).toEqual({
        status: 'invalid',
      });
      expect(await grants.findRefreshToken(next.tokenHash, now + 1000)).toBeNull();
    });
  });

  describe('revocation', () => {
    it('revoking a grant stops its codes, its refresh tokens and its access tokens, and nothing else', async () => {
      const { grants } = await storage();
      const now = baseTime();
      const grantId = freshId('grant');
      const code = await codeRecord(now, { grantId });
      const token = await refreshRecord(now, { grantId });
      const otherToken = await refreshRecord(now);
      await grants.saveCode(code);
      await grants.saveRefreshToken(token);
      await grants.saveRefreshToken(otherToken);
      expect(await grants.isRevoked(freshId('jti'), grantId, now)).toBe(false);

      await grants.revokeGrant(grantId, now + 3_600_000);
      expect(await grants.findCode(code.codeHash, now + 1)).toBeNull();
      const next = await refreshRecord(now + 1, { grantId });
      expect(await grants.redeemCode(code.codeHash, next, now + 1, now + 1 + KEEP_CONSUMED_CODE_MS)).toEqual({
        status: 'invalid',
      });
      expect(await grants.findRefreshToken(token.tokenHash, now + 1)).toBeNull();
      expect(await grants.rotateRefreshToken(token.tokenHash, next, now + 1)).toEqual({ status: 'invalid' });
      expect(await grants.findRefreshToken(next.tokenHash, now + 1)).toBeNull();
      expect(await grants.isRevoked(freshId('jti'), grantId, now + 1)).toBe(true);

      expect(await grants.findRefreshToken(otherToken.tokenHash, now + 1)).toEqual(otherToken);
      expect(await grants.isRevoked(freshId('jti'), otherToken.grantId, now + 1)).toBe(false);
      expect(await grants.isRevoked(freshId('jti'), undefined, now + 1)).toBe(false);
    });

    it('remembers a grant revocation until its expiresAt, never shortened by a later call', async () => {
      const { grants } = await storage();
      const now = baseTime();
      const grantId = freshId('grant');
      await grants.revokeGrant(grantId, now + 60_000);
      await grants.revokeGrant(grantId, now + 60_000);
      await grants.revokeGrant(grantId, now + 1_000);
      expect(await grants.isRevoked(freshId('jti'), grantId, now + 59_999)).toBe(true);
      expect(await grants.isRevoked(freshId('jti'), grantId, now + 60_000)).toBe(false);
    });

    it('revokes one access token by jti until its expiry, idempotently', async () => {
      const { grants } = await storage();
      const now = baseTime();
      const jti = freshId('jti');
      const grantId = freshId('grant');
      expect(await grants.isRevoked(jti, grantId, now)).toBe(false);
      await grants.revokeAccessToken(jti, now + 30_000);
      await grants.revokeAccessToken(jti, now + 30_000);
      expect(await grants.isRevoked(jti, grantId, now)).toBe(true);
      expect(await grants.isRevoked(jti, undefined, now + 29_999)).toBe(true);
      expect(await grants.isRevoked(jti, undefined, now + 30_000)).toBe(false);
      // Only that token: its grant and its siblings stay valid.
      expect(await grants.isRevoked(freshId('jti'), grantId, now)).toBe(false);
    });
  });
}
