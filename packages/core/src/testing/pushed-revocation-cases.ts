import type {
  GrantStore,
  RevocationEvent,
  RevocationListener,
  RevocationSubscription,
  StorageEngine,
} from '../storage/types.js';
import type { CaseContext } from './conformance-api.js';
import { freshId } from './records.js';
import { optionalCase, type SkipCase } from './skip.js';

/** What the pushed-revocation cases need besides the engine (see `StorageConformanceTarget`). */
export interface PushedRevocationTarget {
  /** Another handle on the same data with its own connections: "another process". */
  peer?(): Promise<StorageEngine>;
  /** Breaks the peer's revocation channel once (it must reconnect by itself). */
  cutChannel?(peer: StorageEngine): Promise<void>;
}

/** A listener that records what arrives, in order, and lets a case wait for a condition. */
function recorder() {
  const log: (RevocationEvent | { kind: 'connected' } | { kind: 'lost' } | { kind: 'echo'; id: string })[] =
    [];
  const waiters = new Set<() => void>();
  const push = (entry: (typeof log)[number]) => {
    log.push(entry);
    for (const wake of waiters) wake();
  };
  const listener: RevocationListener = {
    connected: () => push({ kind: 'connected' }),
    revoked: (event) => push(event),
    echoed: (id) => push({ kind: 'echo', id }),
    lost: () => push({ kind: 'lost' }),
  };
  /** Resolves once `test(log)` holds (the test runner's timeout bounds the wait). */
  const until = (test: (entries: typeof log) => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (test(log)) {
          waiters.delete(check);
          resolve();
        }
      };
      waiters.add(check);
      check();
    });
  return { log, listener, until };
}

const count = (entries: { kind: string }[], kind: string) => entries.filter((e) => e.kind === kind).length;

/** Sends a probe and waits for its echo: afterwards every revocation committed before is delivered. */
async function roundTrip(subscription: RevocationSubscription, rec: ReturnType<typeof recorder>) {
  const probeId = freshId('probe');
  await subscription.probe(probeId);
  await rec.until((log) => log.some((e) => e.kind === 'echo' && (e as { id: string }).id === probeId));
}

/**
 * Pushed revocations (`GrantStore.watchRevocations`, optional): a revocation committed through one
 * handle reaches another handle's listener before a probe sent after it; a channel cut and restored
 * loses nothing, because the snapshot taken after reconnecting holds what was committed meanwhile.
 */
export function pushedRevocationCases({ api, engine }: CaseContext, target: PushedRevocationTarget): void {
  const { describe, expect } = api;

  const setup = async (skip: SkipCase) => {
    const here = await engine();
    const there = target.peer ? await target.peer() : here;
    const instanceId = freshId('push');
    const writer: GrantStore = here.instance(instanceId).grants;
    const watched: GrantStore = there.instance(instanceId).grants;
    if (!watched.watchRevocations) {
      return skip('the grant store has no watchRevocations (pushed revocations, optional)');
    }
    const rec = recorder();
    const subscription = watched.watchRevocations(rec.listener);
    await rec.until((log) => count(log, 'connected') === 1);
    return { there, writer, watched, rec, subscription };
  };

  describe('pushed revocations', () => {
    optionalCase(
      api,
      'delivers a revocation committed by another process before a probe sent after it',
      async (skip) => {
        const s = await setup(skip);
        const expiresAt = Date.now() + 60_000;
        const grantId = freshId('grant');
        const jti = freshId('jti');
        const userId = freshId('user');
        await s.writer.revokeGrant(grantId, expiresAt);
        await s.writer.revokeAccessToken(jti, expiresAt);
        await s.writer.revokeSubject?.(userId, expiresAt - 60_000, expiresAt);
        await roundTrip(s.subscription, s.rec);
        const ids = s.rec.log.map((e) => ('id' in e ? `${e.kind}:${e.id}` : e.kind));
        expect(ids.includes(`grant:${grantId}`)).toBe(true);
        expect(ids.includes(`token:${jti}`)).toBe(true);
        if (s.writer.revokeSubject) expect(ids.includes(`subject:${userId}`)).toBe(true);
        s.subscription.unsubscribe();
      },
    );

    optionalCase(api, "does not deliver another instance's revocations", async (skip) => {
      const s = await setup(skip);
      const other = (await engine()).instance(freshId('push-other')).grants;
      const grantId = freshId('grant');
      await other.revokeGrant(grantId, Date.now() + 60_000);
      await roundTrip(s.subscription, s.rec);
      expect(s.rec.log.some((e) => 'id' in e && e.kind === 'grant' && e.id === grantId)).toBe(false);
      s.subscription.unsubscribe();
    });

    optionalCase(
      api,
      'answers a snapshot with every revocation in force, the later expiry and the later mark',
      async (skip) => {
        const s = await setup(skip);
        const now = Date.now();
        const grantId = freshId('grant{x}%');
        const userId = freshId('user');
        await s.writer.revokeGrant(grantId, now + 120_000);
        await s.writer.revokeGrant(grantId, now + 60_000); // never shortens
        await s.writer.revokeSubject?.(userId, now - 5000, now + 60_000);
        await s.writer.revokeSubject?.(userId, now - 10_000, now + 30_000); // never moves back
        const snapshot = await s.subscription.snapshot(now);
        const grant = snapshot.find((e) => e.kind === 'grant' && e.id === grantId);
        expect(grant?.expiresAt).toBe(now + 120_000);
        if (s.writer.revokeSubject) {
          const mark = snapshot.find((e) => e.kind === 'subject' && e.id === userId);
          expect(mark && mark.kind === 'subject' && [mark.at, mark.expiresAt]).toEqual([
            now - 5000,
            now + 60_000,
          ]);
        }
        s.subscription.unsubscribe();
      },
    );

    optionalCase(
      api,
      'loses nothing across a cut channel: lost, then connected again, and the snapshot holds what was revoked meanwhile',
      async (skip) => {
        if (!target.cutChannel)
          return skip('the target gives no cutChannel (a way to break the channel once)');
        const s = await setup(skip);
        await target.cutChannel(s.there);
        await s.rec.until((log) => count(log, 'lost') === 1);
        const grantId = freshId('grant');
        await s.writer.revokeGrant(grantId, Date.now() + 60_000);
        await s.rec.until((log) => count(log, 'connected') === 2);
        // What a mirror does on `connected`: events from now on, plus the snapshot.
        const snapshot = await s.subscription.snapshot(Date.now());
        const afterReconnect = s.rec.log.slice(s.rec.log.findLastIndex((e) => e.kind === 'connected'));
        const seen = [...snapshot, ...afterReconnect].some(
          (e) => 'id' in e && e.kind === 'grant' && e.id === grantId,
        );
        expect(seen).toBe(true);
        // And the channel works again.
        const later = freshId('grant');
        await s.writer.revokeGrant(later, Date.now() + 60_000);
        await roundTrip(s.subscription, s.rec);
        expect(s.rec.log.some((e) => 'id' in e && e.kind === 'grant' && e.id === later)).toBe(true);
        s.subscription.unsubscribe();
      },
    );
  });
}
