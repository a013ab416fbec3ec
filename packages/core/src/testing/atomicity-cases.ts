import type { CaseContext } from './conformance-api.js';
import { baseTime, codeRecord, KEEP_CONSUMED_CODE_MS, refreshRecord } from './records.js';

/**
 * The heart of the contract: among many concurrent callers exactly one wins a code or a refresh
 * token, the others are told it was a replay / reuse, and only the winner's write lands.
 */
export function atomicityCases({ api, storage, concurrency }: CaseContext): void {
  const { describe, it, expect } = api;

  describe('atomicity under concurrency', () => {
    it(`${concurrency} parallel redemptions of one code: exactly one redeemed, the rest replayed`, async () => {
      const { grants } = await storage();
      const now = baseTime();
      const code = await codeRecord(now);
      await grants.saveCode(code);
      const candidates = await Promise.all(
        Array.from({ length: concurrency }, () =>
          refreshRecord(now, { grantId: code.grantId, subject: { kind: 'user', userId: code.userId } }),
        ),
      );
      const results = await Promise.all(
        candidates.map((refresh) =>
          grants.redeemCode(code.codeHash, refresh, now, now + KEEP_CONSUMED_CODE_MS),
        ),
      );
      expect(results.filter((result) => result.status === 'redeemed').length).toBe(1);
      expect(results.filter((result) => result.status === 'replayed').length).toBe(concurrency - 1);
      const stored = await Promise.all(
        candidates.map((refresh) => grants.findRefreshToken(refresh.tokenHash, now)),
      );
      const winner = candidates[results.findIndex((result) => result.status === 'redeemed')];
      expect(stored.filter((record) => record !== null)).toEqual([winner]);
    });

    it(`${concurrency} parallel rotations of one refresh token: exactly one rotated, the rest reused`, async () => {
      const { grants } = await storage();
      const now = baseTime();
      const token = await refreshRecord(now);
      await grants.saveRefreshToken(token);
      const candidates = await Promise.all(
        Array.from({ length: concurrency }, () =>
          refreshRecord(now + 1, { grantId: token.grantId, subject: token.subject }),
        ),
      );
      const results = await Promise.all(
        candidates.map((next) => grants.rotateRefreshToken(token.tokenHash, next, now + 1)),
      );
      expect(results.filter((result) => result.status === 'rotated').length).toBe(1);
      expect(results.filter((result) => result.status === 'reused').length).toBe(concurrency - 1);
      const stored = await Promise.all(
        candidates.map((next) => grants.findRefreshToken(next.tokenHash, now + 1)),
      );
      const winner = candidates[results.findIndex((result) => result.status === 'rotated')];
      expect(stored.filter((record) => record !== null)).toEqual([winner]);
    });

    it('parallel increments of one rate-limit key each count once', async () => {
      const { rateLimits } = await storage();
      const now = baseTime();
      const key = `conformance:${crypto.randomUUID()}`;
      const parallel = Math.min(concurrency, 50);
      const windows = await Promise.all(
        Array.from({ length: parallel }, () => rateLimits.increment(key, 60_000, now)),
      );
      const counts = windows.map((window) => window.count).sort((a, b) => a - b);
      expect(counts).toEqual(Array.from({ length: parallel }, (_, i) => i + 1));
      expect(new Set(windows.map((window) => window.resetAt)).size).toBe(1);
      expect(await rateLimits.get(key, now)).toEqual({ count: parallel, resetAt: now + 60_000 });
    });
  });
}
