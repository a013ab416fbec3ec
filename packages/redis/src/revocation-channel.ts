import {
  type RevocationEvent,
  type RevocationListener,
  type RevocationSubscription,
  revocationEvent,
  revocationFanout,
  revocationProbeMessage,
} from '@gatehousejs/core/engine';
import type { Cluster, Redis } from 'ioredis';
import { nodesOf } from './clear.js';
import type { KeyLayout } from './keys.js';
import type { RedisClient } from './script.js';

/**
 * Pushed revocations on Redis pub/sub: one channel per engine (`<prefix>:revocations`), one
 * subscriber connection per process (opened on the first `watchRevocations`), shared by all the
 * engine's instances. The revocation scripts publish in the step that writes (grant-scripts.ts),
 * in the message format of core's `RevocationMessage`; its `revocationFanout` tells the listeners.
 *
 * Redis runs commands one at a time and delivers a connection's messages in publish order, so a
 * probe published after a revocation's script arrives after it (the mirror's lag proof). On a
 * Cluster, messages published on different nodes are not ordered with each other: there the
 * probe proves only that the channel works; see the README.
 */
export interface RevocationHub {
  readonly channel: string;
  watch(keys: KeyLayout, listener: RevocationListener): RevocationSubscription;
  /** Closes the subscriber connection (listeners are told the channel is lost). */
  close(): Promise<void>;
}

export function revocationHub(client: RedisClient, prefix: string): RevocationHub {
  const channel = `${prefix}:revocations`;
  const fanout = revocationFanout();
  let subscriber: RedisClient | undefined;
  let closed = false;

  const open = () => {
    // Resubscribing is ours, so `connected()` is said only once the subscription is in place.
    const options = { autoResubscribe: false, enableOfflineQueue: true };
    const sub: RedisClient = (client as Cluster).isCluster
      ? (client as Cluster).duplicate(undefined, { ...options, redisOptions: { autoResubscribe: false } })
      : (client as Redis).duplicate(options);
    sub.on('error', () => {});
    sub.on('close', fanout.lost);
    sub.on('end', fanout.lost);
    sub.on('ready', () => {
      sub.subscribe(channel).then(
        () => {
          if (!closed) fanout.connected();
        },
        () => sub.disconnect(true),
      );
    });
    sub.on('message', (_channel: string, message: string) => fanout.deliver(message));
    return sub;
  };

  return {
    channel,
    watch(keys, listener) {
      const remove = fanout.add(keys.instanceId, listener);
      if (!closed) subscriber ??= open();
      return {
        async probe(probeId) {
          await client.publish(channel, revocationProbeMessage(probeId));
        },
        snapshot: (now) => snapshot(client, keys, now),
        unsubscribe: remove,
      };
    },
    async close() {
      closed = true;
      fanout.lost();
      if (subscriber) await subscriber.quit().catch(() => subscriber!.disconnect());
    },
  };
}

/**
 * Every revocation of the instance in force: SCAN (never KEYS) of its grant, token and user
 * markers on every master, then their values. Run once per (re)connection of the channel.
 */
async function snapshot(client: RedisClient, keys: KeyLayout, now: number): Promise<RevocationEvent[]> {
  const events: RevocationEvent[] = [];
  const kinds = [
    ['g', keys.revocations.grants],
    ['t', keys.revocations.tokens],
    ['u', keys.revocations.subjects],
  ] as const;
  for (const node of nodesOf(client)) {
    for (const [kind, pattern] of kinds) {
      let cursor = '0';
      do {
        const [next, found] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        cursor = next;
        const values = await Promise.all(found.map((key) => client.get(key)));
        found.forEach((key, i) => {
          const value = values[i];
          if (value == null) return; // expired meanwhile
          const event = revocationEvent(kind, keys.revocations.idOf(key), value);
          if (event && event.expiresAt > now) events.push(event);
        });
      } while (cursor !== '0');
    }
  }
  return events;
}
