import type { CaseContext } from './conformance-api.js';
import {
  baseTime,
  codeRecord,
  freshId,
  KEEP_CONSUMED_CODE_MS,
  refreshRecord,
  sessionRecord,
} from './records.js';

/** Extension values of every JSON kind, nested: an engine must give them back as given. */
const EXT = {
  string: 'é ✓ "quoted"',
  number: 1.5,
  flag: false,
  none: null,
  list: [1, 'two'],
  nested: { a: { b: [] } },
};

/**
 * Storage v2's optional fields: subjects of either kind, per-token audience, OpenID Connect
 * attributes and the `ext` extension field. Stored losslessly by every engine, so later features
 * add attributes without a storage migration.
 */
export function recordFieldCases({ api, storage }: CaseContext): void {
  const { describe, it, expect } = api;

  describe('optional fields and extensions', () => {
    it('keeps a code’s audience, OpenID Connect attributes and extensions, through redemption', async () => {
      const { grants } = await storage();
      const now = baseTime();
      const code = await codeRecord(now, {
        audience: ['https://api.example/a', 'https://api.example/b'],
        nonce: 'n-0S6_WzA2Mj',
        sessionId: freshId('sid'),
        acr: 'urn:example:loa:2',
        amr: ['pwd', 'otp'],
        ext: EXT,
      });
      await grants.saveCode(code);
      expect(await grants.findCode(code.codeHash, now)).toEqual(code);
      const refresh = await refreshRecord(now, {
        grantId: code.grantId,
        subject: { kind: 'user', userId: code.userId },
        audience: code.audience,
        authTime: now - 1000,
        sessionId: code.sessionId,
        acr: code.acr,
        amr: code.amr,
        ext: EXT,
      });
      const keepUntil = now + KEEP_CONSUMED_CODE_MS;
      const consumed = { ...code, consumedAt: now, expiresAt: keepUntil };
      expect(await grants.redeemCode(code.codeHash, refresh, now, keepUntil)).toEqual({
        status: 'redeemed',
        code: consumed,
      });
      expect(await grants.findCode(code.codeHash, now + 1)).toEqual(consumed);
      expect(await grants.findRefreshToken(refresh.tokenHash, now)).toEqual(refresh);
    });

    it('keeps a refresh token of a client subject apart from a user with the same id, through rotation', async () => {
      const { grants } = await storage();
      const now = baseTime();
      const id = freshId('same-id');
      const ofClient = await refreshRecord(now, { clientId: id, subject: { kind: 'client', clientId: id } });
      const ofUser = await refreshRecord(now, { clientId: id, subject: { kind: 'user', userId: id } });
      await grants.saveRefreshToken(ofClient);
      await grants.saveRefreshToken(ofUser);
      expect(await grants.findRefreshToken(ofClient.tokenHash, now)).toEqual(ofClient);
      expect(await grants.findRefreshToken(ofUser.tokenHash, now)).toEqual(ofUser);

      const next = await refreshRecord(now + 1, {
        grantId: ofClient.grantId,
        clientId: id,
        subject: ofClient.subject,
        audience: ['urn:example:resource'],
        authTime: now - 5000,
        ext: EXT,
      });
      expect(await grants.rotateRefreshToken(ofClient.tokenHash, next, now + 1)).toEqual({
        status: 'rotated',
        previous: ofClient,
      });
      expect(await grants.findRefreshToken(next.tokenHash, now + 1)).toEqual(next);
      expect(await grants.findRefreshToken(ofClient.tokenHash, now + 1)).toEqual({
        ...ofClient,
        rotatedAt: now + 1,
      });
    });

    it('keeps a session’s public id, authentication attributes and extensions, through a touch', async () => {
      const { sessions } = await storage();
      const now = baseTime();
      const session = await sessionRecord(now, { sid: freshId('sid'), acr: '1', amr: ['pwd'], ext: EXT });
      await sessions.createSession(session);
      expect(await sessions.findSession(session.idHash, now)).toEqual(session);
      await sessions.touchSession(session.idHash, now + 90_000);
      expect(await sessions.findSession(session.idHash, now + 90_000)).toEqual({
        ...session,
        lastSeenAt: now + 90_000,
      });
    });

    it('keeps a consent’s extensions', async () => {
      const { consents } = await storage();
      const now = baseTime();
      const consent = {
        userId: freshId('user'),
        clientId: 'client-a',
        scope: 'read',
        expiresAt: now + 60_000,
        ext: EXT,
      };
      await consents.saveConsent(consent);
      expect(await consents.findConsent(consent.userId, 'client-a', now)).toEqual(consent);
    });
  });
}
