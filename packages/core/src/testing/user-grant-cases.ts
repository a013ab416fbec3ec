import type { GrantStore } from '../storage/types.js';
import type { CaseContext } from './conformance-api.js';
import { baseTime, codeRecord, freshId, KEEP_CONSUMED_CODE_MS, refreshRecord } from './records.js';
import { optionalCase, type SkipCase } from './skip.js';

/**
 * A user's grants ("connected apps", `gatehouse.listGrants`): `listUserRefreshTokens` returns the
 * user's refresh tokens that can still be used, whichever way they were stored (saved, issued by
 * a code redemption, or by a rotation), and never a rotated, expired or revoked one, another
 * user's, a client subject's or another instance's; `deleteConsent` forgets one consent (through
 * the consent store built on `kv`). Listing is optional: for an engine without it these cases are
 * skipped, with the reason.
 */
export function userGrantCases({ api, storage, engine }: CaseContext): void {
  const { describe, expect } = api;

  /** The store's listing method; the case is skipped for an engine without it. */
  const listingOf = async (skip: SkipCase) => {
    const { grants } = await storage();
    if (!grants.listUserRefreshTokens) {
      skip("the grant store has no listUserRefreshTokens (a user's grants, optional)");
    }
    return grants as GrantStore & Required<Pick<GrantStore, 'listUserRefreshTokens'>>;
  };
  const hashesOf = (records: readonly { tokenHash: string }[]) => records.map((r) => r.tokenHash).sort();

  describe("a user's grants", () => {
    optionalCase(
      api,
      'lists the live refresh tokens of a user, stored by save, redemption and rotation, with every field',
      async (skip) => {
        const grants = await listingOf(skip);
        const now = baseTime();
        const userId = freshId('user');
        const subject = { kind: 'user' as const, userId };
        const saved = await refreshRecord(now, { subject, grantedAt: now - 5000, ext: { device: 'phone' } });
        await grants.saveRefreshToken(saved);
        const code = await codeRecord(now, { userId });
        await grants.saveCode(code);
        const redeemed = await refreshRecord(now, { subject, grantId: code.grantId, clientId: 'client-b' });
        await grants.redeemCode(code.codeHash, redeemed, now, now + KEEP_CONSUMED_CODE_MS);
        const rotated = await refreshRecord(now + 1000, {
          subject,
          grantId: saved.grantId,
          grantedAt: now - 5000,
        });
        expect((await grants.rotateRefreshToken(saved.tokenHash, rotated, now + 1000)).status).toBe(
          'rotated',
        );

        const listed = await grants.listUserRefreshTokens(userId, now + 2000);
        expect(hashesOf(listed)).toEqual(hashesOf([redeemed, rotated]));
        expect(listed.find((r) => r.tokenHash === rotated.tokenHash)).toEqual(rotated);
        expect(listed.find((r) => r.tokenHash === redeemed.tokenHash)).toEqual(redeemed);
        expect(await grants.listUserRefreshTokens(freshId('user'), now + 2000)).toEqual([]);
      },
    );

    optionalCase(
      api,
      "leaves out expired tokens, revoked grants, tokens under the user's mark, other users and client subjects",
      async (skip) => {
        const grants = await listingOf(skip);
        const now = baseTime();
        const userId = freshId('user');
        const subject = { kind: 'user' as const, userId };
        const live = await refreshRecord(now, { subject });
        const shortLived = await refreshRecord(now, { subject, expiresAt: now + 30_000 });
        const revoked = await refreshRecord(now, { subject });
        const stranger = await refreshRecord(now);
        // A client acting for itself whose client id equals the user id is not the user.
        const client = await refreshRecord(now, { subject: { kind: 'client', clientId: userId } });
        for (const token of [live, shortLived, revoked, stranger, client])
          await grants.saveRefreshToken(token);
        await grants.revokeGrant(revoked.grantId, now + 3_600_000);

        expect(hashesOf(await grants.listUserRefreshTokens(userId, now + 1000))).toEqual(
          hashesOf([live, shortLived]),
        );
        expect(hashesOf(await grants.listUserRefreshTokens(userId, now + 31_000))).toEqual(hashesOf([live]));
        if (grants.revokeSubject) {
          await grants.revokeSubject(userId, now + 500, now + 3_600_000);
          expect(await grants.listUserRefreshTokens(userId, now + 1000)).toEqual([]);
          const after = await refreshRecord(now + 2000, { subject });
          await grants.saveRefreshToken(after);
          expect(hashesOf(await grants.listUserRefreshTokens(userId, now + 2000))).toEqual(hashesOf([after]));
        }
      },
    );

    optionalCase(api, "lists only the instance's own tokens when user ids coincide", async (skip) => {
      await listingOf(skip);
      let shared: Awaited<ReturnType<typeof engine>>;
      try {
        shared = await engine();
      } catch {
        return skip("the target is one instance's stores (isolation: false): nothing to isolate");
      }
      const id = freshId('grants');
      const [a, b] = [shared.instance(id), shared.instance(`${id}:1`)];
      const now = baseTime();
      const userId = freshId('user');
      const token = await refreshRecord(now, { subject: { kind: 'user', userId } });
      await a.grants.saveRefreshToken(token);
      expect(hashesOf((await a.grants.listUserRefreshTokens?.(userId, now)) ?? [])).toEqual([
        token.tokenHash,
      ]);
      expect(await b.grants.listUserRefreshTokens?.(userId, now)).toEqual([]);
      await a.clear();
      expect(await a.grants.listUserRefreshTokens?.(userId, now)).toEqual([]);
    });

    api.it('forgets one consent and keeps the others', async () => {
      const { consents } = await storage();
      const now = baseTime();
      const userId = freshId('user');
      const consent = (clientId: string) => ({ userId, clientId, scope: 'read', expiresAt: now + 3_600_000 });
      await consents.saveConsent(consent('client-a'));
      await consents.saveConsent(consent('client-b'));
      await consents.deleteConsent(userId, 'client-a');
      await consents.deleteConsent(userId, 'client-a');
      expect(await consents.findConsent(userId, 'client-a', now)).toBeNull();
      expect(await consents.findConsent(userId, 'client-b', now)).toEqual(consent('client-b'));
    });
  });
}
