import {
  decodeRevocationMessage,
  type RevocationEvent,
  type RevocationListener,
  revocationFanout,
  revocationProbeMessage,
} from '@gatehousejs/core/engine';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/** A listener that writes down what it is told. */
function recorder() {
  const heard: string[] = [];
  const listener: RevocationListener = {
    connected: () => heard.push('connected'),
    lost: () => heard.push('lost'),
    echoed: (probeId) => heard.push(`echoed ${probeId}`),
    revoked: (event) => heard.push(`revoked ${JSON.stringify(event)}`),
  };
  return { heard, listener };
}

const tag = (instanceId: string) => `${instanceId.length}:${instanceId}`;

describe('revocation channel messages', () => {
  it('read back grants, tokens and user marks, ids and instance ids containing the separators', () => {
    expect(decodeRevocationMessage(`g|1700000000000|${tag('acme')}grant|1:x`)).toEqual({
      instanceId: 'acme',
      event: { kind: 'grant', id: 'grant|1:x', expiresAt: 1_700_000_000_000 },
    });
    expect(decodeRevocationMessage(`t|5|${tag('a:b|c')}jti`)).toEqual({
      instanceId: 'a:b|c',
      event: { kind: 'token', id: 'jti', expiresAt: 5 },
    });
    expect(decodeRevocationMessage(`u|10 20|${tag('default')}user 1`)).toEqual({
      instanceId: 'default',
      event: { kind: 'subject', id: 'user 1', at: 10, expiresAt: 20 },
    });
    expect(decodeRevocationMessage(revocationProbeMessage('probe-1'))).toEqual({ probeId: 'probe-1' });
  });

  it('ignore anything that is not a message: unknown kinds, missing parts, lengths past the end', () => {
    for (const text of [
      '',
      'x',
      'q|1|4:acmeid',
      'g',
      'g|1',
      'g|1|acme',
      'g|1|9:acme',
      'g|1|-1:acme',
      'g|1|x:acme',
    ])
      expect(decodeRevocationMessage(text), text).toBeUndefined();
  });

  it('round-trip any instance id and revoked id (fast-check)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.nat(), (instanceId, id, expiresAt) => {
        expect(decodeRevocationMessage(`g|${expiresAt}|${tag(instanceId)}${id}`)).toEqual({
          instanceId,
          event: { kind: 'grant', id, expiresAt },
        });
      }),
    );
  });
});

describe('revocation fanout', () => {
  const grant = (id: string): RevocationEvent => ({ kind: 'grant', id, expiresAt: 1 });

  it("tells a revocation only to its instance's listeners, and a probe's echo to all", () => {
    const fanout = revocationFanout();
    const acme = recorder();
    const demo = recorder();
    fanout.add('acme', acme.listener);
    fanout.add('demo', demo.listener);
    fanout.deliver(`g|1|${tag('acme')}g1`);
    fanout.deliver(revocationProbeMessage('p1'));
    fanout.deliver('not a message');
    expect(acme.heard).toEqual([`revoked ${JSON.stringify(grant('g1'))}`, 'echoed p1']);
    expect(demo.heard).toEqual(['echoed p1']);
  });

  it('says connected and lost once per change, and stops telling a removed listener', () => {
    const fanout = revocationFanout();
    const first = recorder();
    const remove = fanout.add('acme', first.listener);
    fanout.lost(); // not connected yet: nothing to lose
    fanout.connected();
    fanout.connected();
    expect(fanout.isConnected).toBe(true);
    fanout.lost();
    fanout.lost();
    expect(fanout.isConnected).toBe(false);
    remove();
    fanout.connected();
    fanout.deliver(`g|1|${tag('acme')}g1`);
    expect(first.heard).toEqual(['connected', 'lost']);
  });

  it('tells a listener added while connected, after the call that added it returned', async () => {
    const fanout = revocationFanout();
    fanout.connected();
    const late = recorder();
    fanout.add('acme', late.listener);
    expect(late.heard).toEqual([]);
    await Promise.resolve();
    expect(late.heard).toEqual(['connected']);
    const removedAtOnce = recorder();
    fanout.add('acme', removedAtOnce.listener)();
    await Promise.resolve();
    expect(removedAtOnce.heard).toEqual([]);
  });
});
