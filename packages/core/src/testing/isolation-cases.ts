import type { CaseContext, KitStorage } from './conformance-api.js';
import {
  baseTime,
  codeRecord,
  freshId,
  KEEP_CONSUMED_CODE_MS,
  refreshRecord,
  sessionRecord,
} from './records.js';
import { registeredClient } from './registry-cases.js';

/**
 * Two instances on one engine, with the same client ids, user ids, grant ids, hashes and keys,
 * never see each other's records: storage v2 keeps instances apart by construction. The second
 * instance's id extends the first's (`x` and `x:1`), so an engine that joins ids into keys without
 * delimiting them fails here.
 */
export function isolationCases({ api, engine }: CaseContext): void {
  const { describe, it, expect } = api;

  /** Views of two fresh instances, A and B, of the engine under test. */
  const twoInstances = async (): Promise<[KitStorage, KitStorage]> => {
    const shared = await engine();
    const id = freshId('isolation');
    return [shared.instance(id), shared.instance(`${id}:1`)];
  };

  describe('isolation of instances sharing one engine', () => {
    it('gives views of the same instance id the same records', async () => {
      const shared = await engine();
      const id = freshId('isolation');
      const now = baseTime();
      const session = await sessionRecord(now);
      await shared.instance(id).sessions.createSession(session);
      expect(await shared.instance(id).sessions.findSession(session.idHash, now)).toEqual(session);
    });

    it('keeps codes apart: another instance can neither find, redeem nor overwrite one', async () => {
      const [a, b] = await twoInstances();
      const now = baseTime();
      const code = await codeRecord(now);
      await a.grants.saveCode(code);
      expect(await b.grants.findCode(code.codeHash, now)).toBeNull();
      expect(await b.grants.redeemCode(code.codeHash, null, now, now + KEEP_CONSUMED_CODE_MS)).toEqual({
        status: 'invalid',
      });
      // B's own code under the same hash is B's alone.
      const theirs = { ...code, clientId: 'client-b', scope: 'other' };
      await b.grants.saveCode(theirs);
      expect(await a.grants.findCode(code.codeHash, now)).toEqual(code);
      expect((await a.grants.redeemCode(code.codeHash, null, now, now + KEEP_CONSUMED_CODE_MS)).status).toBe(
        'redeemed',
      );
      expect(await b.grants.findCode(code.codeHash, now)).toEqual(theirs);
    });

    it('keeps refresh tokens apart: another instance can neither find, rotate nor introspect one', async () => {
      const [a, b] = await twoInstances();
      const now = baseTime();
      const token = await refreshRecord(now);
      await a.grants.saveRefreshToken(token);
      expect(await b.grants.findRefreshToken(token.tokenHash, now)).toBeNull();
      const stolen = await refreshRecord(now + 1, { grantId: token.grantId, subject: token.subject });
      expect(await b.grants.rotateRefreshToken(token.tokenHash, stolen, now + 1)).toEqual({
        status: 'invalid',
      });
      expect(await b.grants.findRefreshToken(stolen.tokenHash, now + 1)).toBeNull();
      expect(await a.grants.findRefreshToken(stolen.tokenHash, now + 1)).toBeNull();
      expect(await a.grants.findRefreshToken(token.tokenHash, now + 1)).toEqual(token);
    });

    it('keeps revocations apart: revoking a grant or a jti in one instance leaves the other’s alone', async () => {
      const [a, b] = await twoInstances();
      const now = baseTime();
      const grantId = freshId('grant');
      const jti = freshId('jti');
      const ofA = await refreshRecord(now, { grantId });
      const ofB = await refreshRecord(now, { grantId });
      await a.grants.saveRefreshToken(ofA);
      await b.grants.saveRefreshToken(ofB);
      await a.grants.revokeGrant(grantId, now + 60_000);
      await a.grants.revokeAccessToken(jti, now + 60_000);
      expect(await a.grants.isRevoked(jti, undefined, now)).toBe(true);
      expect(await a.grants.isRevoked(freshId('jti'), grantId, now)).toBe(true);
      expect(await a.grants.findRefreshToken(ofA.tokenHash, now)).toBeNull();
      expect(await b.grants.isRevoked(jti, undefined, now)).toBe(false);
      expect(await b.grants.isRevoked(jti, grantId, now)).toBe(false);
      expect(await b.grants.findRefreshToken(ofB.tokenHash, now)).toEqual(ofB);
      // A user's mark (engines with revokeSubject) is the instance's too.
      if (a.grants.revokeSubject && b.grants.subjectRevokedAt) {
        await a.grants.revokeSubject('user-1', now, now + 60_000);
        expect(await a.grants.isRevoked(freshId('jti'), undefined, now + 1, 'user-1', now - 1000)).toBe(true);
        expect(await b.grants.isRevoked(freshId('jti'), undefined, now + 1, 'user-1', now - 1000)).toBe(
          false,
        );
        expect(await b.grants.subjectRevokedAt('user-1', now + 1)).toBeNull();
      }
    });

    it('keeps sessions apart: another instance can neither find, touch nor delete one', async () => {
      const [a, b] = await twoInstances();
      const now = baseTime();
      const session = await sessionRecord(now, { userId: 'user-1' });
      await a.sessions.createSession(session);
      expect(await b.sessions.findSession(session.idHash, now)).toBeNull();
      await b.sessions.touchSession(session.idHash, now + 5_000);
      await b.sessions.deleteSession(session.idHash);
      expect(await b.sessions.findSession(session.idHash, now + 5_000)).toBeNull();
      expect(await a.sessions.findSession(session.idHash, now + 5_000)).toEqual(session);
    });

    it('keeps consents apart for the same user and client ids', async () => {
      const [a, b] = await twoInstances();
      const now = baseTime();
      const consent = {
        userId: 'user-1',
        clientId: 'client-a',
        scope: 'read write',
        expiresAt: now + 60_000,
      };
      await a.consents.saveConsent(consent);
      expect(await b.consents.findConsent('user-1', 'client-a', now)).toBeNull();
      await b.consents.saveConsent({ ...consent, scope: 'read' });
      expect(await a.consents.findConsent('user-1', 'client-a', now)).toEqual(consent);
    });

    it('keeps rate-limit windows apart: counts, resets and windows of one key are per instance', async () => {
      const [a, b] = await twoInstances();
      const now = baseTime();
      const key = 'user:demo|203.0.113.9';
      await a.rateLimits.increment(key, 10_000, now);
      await a.rateLimits.increment(key, 10_000, now);
      expect(await b.rateLimits.get(key, now)).toBeNull();
      expect(await b.rateLimits.increment(key, 10_000, now + 1)).toEqual({ count: 1, resetAt: now + 10_001 });
      await b.rateLimits.reset(key);
      expect(await a.rateLimits.get(key, now + 2)).toEqual({ count: 2, resetAt: now + 10_000 });
      await a.rateLimits.reset(key);
      await b.rateLimits.increment(key, 10_000, now + 3);
      expect(await a.rateLimits.get(key, now + 3)).toBeNull();
    });

    it('keeps registered clients and replay ids apart', async () => {
      const [a, b] = await twoInstances();
      const now = baseTime();
      const registration = registeredClient(now);
      await a.clients.saveClient(registration);
      expect(await b.clients.findClient(registration.client.id, now)).toBeNull();
      await b.clients.deleteClient(registration.client.id);
      expect(await a.clients.findClient(registration.client.id, now)).toEqual(registration);

      const jti = freshId('jti');
      expect(await a.replay.useOnce(jti, now + 60_000, now)).toBe(true);
      expect(await b.replay.useOnce(jti, now + 60_000, now)).toBe(true);
      expect(await a.replay.useOnce(jti, now + 60_000, now)).toBe(false);
    });

    it('clear() deletes every record of one instance and nothing of the other', async () => {
      const [a, b] = await twoInstances();
      const now = baseTime();
      const grantId = freshId('grant');
      const jti = freshId('jti');
      const key = `clear:${crypto.randomUUID()}`;
      const registration = registeredClient(now);
      const fill = async (s: KitStorage) => {
        const code = await codeRecord(now, { grantId });
        const token = await refreshRecord(now, { grantId: freshId('grant') });
        const session = await sessionRecord(now);
        await s.grants.saveCode(code);
        await s.grants.saveRefreshToken(token);
        await s.grants.revokeGrant(grantId, now + 60_000);
        await s.grants.revokeAccessToken(jti, now + 60_000);
        await s.grants.revokeSubject?.('user-1', now, now + 60_000);
        await s.sessions.createSession(session);
        await s.consents.saveConsent({
          userId: 'user-1',
          clientId: 'client-a',
          scope: 'r',
          expiresAt: now + 60_000,
        });
        await s.rateLimits.increment(key, 60_000, now);
        await s.clients.saveClient(registration);
        await s.replay.useOnce(jti, now + 60_000, now);
        return { code, token, session };
      };
      const ofA = await fill(a);
      const ofB = await fill(b);

      await a.clear();
      expect(await a.grants.findCode(ofA.code.codeHash, now)).toBeNull();
      expect(await a.grants.findRefreshToken(ofA.token.tokenHash, now)).toBeNull();
      expect(await a.grants.isRevoked(jti, grantId, now)).toBe(false);
      expect((await a.grants.subjectRevokedAt?.('user-1', now)) ?? null).toBeNull();
      expect(await a.sessions.findSession(ofA.session.idHash, now)).toBeNull();
      expect(await a.consents.findConsent('user-1', 'client-a', now)).toBeNull();
      expect(await a.rateLimits.get(key, now)).toBeNull();
      expect(await a.clients.findClient(registration.client.id, now)).toBeNull();
      expect(await a.replay.useOnce(jti, now + 60_000, now)).toBe(true);

      // B kept everything (its code is still revoked with its grant, as before the clear).
      expect(await b.grants.isRevoked(jti, grantId, now)).toBe(true);
      if (b.grants.subjectRevokedAt) expect(await b.grants.subjectRevokedAt('user-1', now)).toBe(now);
      expect(await b.grants.findRefreshToken(ofB.token.tokenHash, now)).toEqual(ofB.token);
      expect(await b.sessions.findSession(ofB.session.idHash, now)).toEqual(ofB.session);
      expect((await b.consents.findConsent('user-1', 'client-a', now))?.scope).toBe('r');
      expect(await b.rateLimits.get(key, now)).toEqual({ count: 1, resetAt: now + 60_000 });
      expect(await b.clients.findClient(registration.client.id, now)).toEqual(registration);
      expect(await b.replay.useOnce(jti, now + 60_000, now)).toBe(false);
      // And A works as new after the clear.
      const fresh = await sessionRecord(now);
      await a.sessions.createSession(fresh);
      expect(await a.sessions.findSession(fresh.idHash, now)).toEqual(fresh);
      expect(await b.sessions.findSession(fresh.idHash, now)).toBeNull();
    });
  });
}
