import { markTrusted } from '../guard.js';
import type {
  AuthorizationCodeRecord,
  GrantStore,
  RedeemCodeResult,
  RefreshTokenRecord,
  RotateRefreshTokenResult,
} from '../types.js';
import { ExpiringMap } from './expiring-map.js';

interface Revocation {
  readonly expiresAt: number;
}

/**
 * In-memory {@link GrantStore}: the embedded default, for one process. JavaScript runs each
 * synchronous block to completion, so the check-and-set of `redeemCode` and `rotateRefreshToken`
 * (no `await` between check and write) is atomic.
 */
export function memoryGrantStore(): GrantStore {
  const codes = new ExpiringMap<AuthorizationCodeRecord>();
  const refreshTokens = new ExpiringMap<RefreshTokenRecord>();
  const revokedGrants = new ExpiringMap<Revocation>();
  const revokedTokens = new ExpiringMap<Revocation>();

  const grantRevoked = (grantId: string, now: number) => revokedGrants.get(grantId, now) !== undefined;

  return markTrusted({
    async saveCode(record) {
      codes.set(record.codeHash, record, record.authTime);
    },
    async findCode(codeHash, now) {
      const code = codes.get(codeHash, now);
      return code && !grantRevoked(code.grantId, now) ? code : null;
    },
    async redeemCode(codeHash, refreshToken, now, keepUntil): Promise<RedeemCodeResult> {
      const code = codes.get(codeHash, now);
      if (!code || grantRevoked(code.grantId, now)) return { status: 'invalid' };
      if (code.consumedAt !== undefined) return { status: 'replayed', code };
      // Kept past the code's own expiry so that a late replay still revokes the grant (RFC 6749 §4.1.2).
      const consumed = { ...code, consumedAt: now, expiresAt: Math.max(code.expiresAt, keepUntil) };
      codes.set(codeHash, consumed, now);
      if (refreshToken) refreshTokens.set(refreshToken.tokenHash, refreshToken, now);
      return { status: 'redeemed', code: consumed };
    },
    async saveRefreshToken(record) {
      refreshTokens.set(record.tokenHash, record, record.issuedAt);
    },
    async findRefreshToken(tokenHash, now) {
      const token = refreshTokens.get(tokenHash, now);
      return token && !grantRevoked(token.grantId, now) ? token : null;
    },
    async rotateRefreshToken(tokenHash, next, now): Promise<RotateRefreshTokenResult> {
      const previous = refreshTokens.get(tokenHash, now);
      if (!previous || grantRevoked(previous.grantId, now)) return { status: 'invalid' };
      if (previous.rotatedAt !== undefined) return { status: 'reused', previous };
      refreshTokens.set(tokenHash, { ...previous, rotatedAt: now }, now);
      refreshTokens.set(next.tokenHash, next, now);
      return { status: 'rotated', previous };
    },
    async revokeGrant(grantId, expiresAt) {
      const existing = revokedGrants.get(grantId, 0);
      const until = Math.max(expiresAt, existing?.expiresAt ?? 0);
      revokedGrants.set(grantId, { expiresAt: until }, 0);
    },
    async revokeAccessToken(jti, expiresAt) {
      revokedTokens.set(jti, { expiresAt }, 0);
    },
    // Answered synchronously (see the interface): the bearer check of a known token then waits for nothing.
    isRevoked(jti, grantId, now) {
      return (
        revokedTokens.get(jti, now) !== undefined || (grantId !== undefined && grantRevoked(grantId, now))
      );
    },
  });
}
