import type { RevocationEvent, RevocationListener, RevocationSubscription } from '@gatehousejs/core';
import type { Cluster, Redis } from 'ioredis';
import { nodesOf } from './clear.js';
import type { KeyLayout } from './keys.js';
import type { RedisClient } from './script.js';

/**
 * Pushed revocations on Redis pub/sub: one channel per engine (`<prefix>:revocations`), one
 * subscriber connection per process (opened on the first `watchRevocations`), shared by all the
 * engine's instances. The revocation scripts publish in the step that writes (grant-scripts.ts):
 *
 *     g|<expiresAt>|<len>:<instance id><grant id>     t|<expiresAt>|<len>:<instance id><jti>
 *     u|<at> <expiresAt>|<len>:<instance id><user id>  p|<probe id>
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
  const byInstance = new Map<string, Set<RevocationListener>>();
  const all = new Set<RevocationListener>();
  let subscriber: RedisClient | undefined;
  let connected = false;
  let closed = false;

  const lose = () => {
    if (!connected) return;
    connected = false;
    for (const listener of all) listener.lost();
  };

  const open = () => {
    // Resubscribing is ours, so `connected()` is said only once the subscription is in place.
    const options = { autoResubscribe: false, enableOfflineQueue: true };
    const sub: RedisClient = (client as Cluster).isCluster
      ? (client as Cluster).duplicate(undefined, { ...options, redisOptions: { autoResubscribe: false } })
      : (client as Redis).duplicate(options);
    sub.on('error', () => {});
    sub.on('close', lose);
    sub.on('end', lose);
    sub.on('ready', () => {
      sub.subscribe(channel).then(
        () => {
          if (closed || connected) return;
          connected = true;
          for (const listener of all) listener.connected();
        },
        () => sub.disconnect(true),
      );
    });
    sub.on('message', (_channel: string, message: string) => deliver(message));
    return sub;
  };

  const deliver = (message: string) => {
    if (message.startsWith('p|')) {
      const probeId = message.slice(2);
      for (const listener of all) listener.echoed(probeId);
      return;
    }
    const bar = message.indexOf('|', 2);
    const value = message.slice(2, bar);
    const rest = message.slice(bar + 1);
    const colon = rest.indexOf(':');
    const length = Number(rest.slice(0, colon));
    const instanceId = rest.slice(colon + 1, colon + 1 + length);
    const id = rest.slice(colon + 1 + length);
    const listeners = byInstance.get(`${length}:${instanceId}`);
    if (!listeners) return;
    const event = parseEvent(message[0]!, id, value);
    if (event) for (const listener of listeners) listener.revoked(event);
  };

  return {
    channel,
    watch(keys, listener) {
      let listeners = byInstance.get(keys.instanceTag);
      if (!listeners) {
        listeners = new Set();
        byInstance.set(keys.instanceTag, listeners);
      }
      listeners.add(listener);
      all.add(listener);
      if (!closed) subscriber ??= open();
      if (connected) queueMicrotask(() => all.has(listener) && connected && listener.connected());
      return {
        async probe(probeId) {
          await client.publish(channel, `p|${probeId}`);
        },
        snapshot: (now) => snapshot(client, keys, now),
        unsubscribe() {
          listeners.delete(listener);
          all.delete(listener);
        },
      };
    },
    async close() {
      closed = true;
      lose();
      if (subscriber) await subscriber.quit().catch(() => subscriber!.disconnect());
    },
  };
}

function parseEvent(kind: string, id: string, value: string): RevocationEvent | undefined {
  if (kind === 'u') {
    const space = value.indexOf(' ');
    return {
      kind: 'subject',
      id,
      at: Number(value.slice(0, space)),
      expiresAt: Number(value.slice(space + 1)),
    };
  }
  if (kind === 'g') return { kind: 'grant', id, expiresAt: Number(value) };
  if (kind === 't') return { kind: 'token', id, expiresAt: Number(value) };
  return undefined;
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
          const event = parseEvent(kind, keys.revocations.idOf(key), value);
          if (event && event.expiresAt > now) events.push(event);
        });
      } while (cursor !== '0');
    }
  }
  return events;
}
