import {
  type RevocationEvent,
  type RevocationFanout,
  type RevocationListener,
  type RevocationSubscription,
  revocationEvent,
  revocationFanout,
  revocationProbeMessage,
} from '@gatehousejs/core/engine';
import type { Cluster, Redis } from 'ioredis';
import { isCluster, nodesOf } from './clear.js';
import type { KeyLayout } from './keys.js';
import { LuaScript, type RedisClient } from './script.js';

/**
 * Pushed revocations on Redis pub/sub: one channel per engine (`<prefix>:revocations`), shared by
 * all the engine's instances, subscribed on the first `watchRevocations`. The revocation scripts
 * publish in the step that writes (grant-scripts.ts), in the message format of core's
 * `RevocationMessage`; its `revocationFanout` tells the listeners.
 *
 * A single server (standalone, or Sentinel's primary) runs commands one at a time and delivers a
 * connection's messages in publish order, so a probe published after a revocation's script arrives
 * after it (the mirror's lag proof): one subscriber connection per process. A Cluster runs each
 * script on its slot's master and forwards messages to the other nodes over the cluster bus, which
 * neither orders the messages of different nodes nor re-sends those of a broken link: there the
 * proof holds per master only, so the process subscribes on every master and probes every master
 * (see {@link clusterSubscription}).
 */
export interface RevocationHub {
  readonly channel: string;
  watch(keys: KeyLayout, listener: RevocationListener): RevocationSubscription;
  /** Closes the subscriber connections (listeners are told the channel is lost). */
  close(): Promise<void>;
}

/** The process's subscription to the channel, on a single server or on every master of a Cluster. */
interface Subscription {
  probe(probeId: string): Promise<void>;
  close(): Promise<void>;
}

export function revocationHub(client: RedisClient, prefix: string): RevocationHub {
  const channel = `${prefix}:revocations`;
  const fanout = revocationFanout();
  let subscription: Subscription | undefined;
  let closed = false;

  return {
    channel,
    watch(keys, listener) {
      const remove = fanout.add(keys.instanceId, listener);
      if (!closed)
        subscription ??= isCluster(client)
          ? clusterSubscription(client, channel, fanout)
          : serverSubscription(client as Redis, channel, fanout);
      return {
        probe: (probeId) => subscription?.probe(probeId) ?? Promise.resolve(),
        snapshot: (now) => snapshot(client, keys, now),
        unsubscribe: remove,
      };
    },
    async close() {
      closed = true;
      fanout.lost();
      await subscription?.close();
    },
  };
}

/** Options of a subscriber connection: resubscribing is ours, so `connected()` is said only once in place. */
const SUBSCRIBER = { autoResubscribe: false, enableOfflineQueue: true } as const;

/** One subscriber connection (a `duplicate()` of the client, so it follows Sentinel too). */
function serverSubscription(client: Redis, channel: string, fanout: RevocationFanout): Subscription {
  let closed = false;
  const sub = client.duplicate(SUBSCRIBER);
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
  return {
    async probe(probeId) {
      await client.publish(channel, revocationProbeMessage(probeId));
    },
    async close() {
      closed = true;
      await sub.quit().catch(() => sub.disconnect());
    },
  };
}

/**
 * Publishes a probe on the node it runs on, if that node is a master (answers 1; 0 on a replica,
 * which a failover demoted while the client's slot map still named it).
 */
const probeOnMasterScript = new LuaScript(`
if string.find(redis.call('INFO', 'replication'), 'role:master', 1, true) == nil then return 0 end
redis.call('PUBLISH', ARGV[1], ARGV[2])
return 1
`);

/** Probes of this process awaiting echoes at once (the mirror keeps as many). */
const MAX_PENDING_PROBES = 64;

/**
 * The channel on a Cluster: a subscriber connection to every master, each told only its own
 * master's messages in that master's commit order (the cluster bus also brings every other node's,
 * unordered: delivered as well, harmlessly twice). A probe goes to every master as
 * `p|<probe id>@<master>`, and its echo reaches the listeners once each master's own probe came
 * back on that master's subscriber: then every revocation committed on any master before the probe
 * was sent has arrived. Connected once every master's subscriber is in place; lost when any breaks,
 * or when the masters change (a failover, learnt from the client's slot map or from a probe landing
 * on a demoted master), and then subscribed anew on the current masters.
 */
function clusterSubscription(client: Cluster, channel: string, fanout: RevocationFanout): Subscription {
  let closed = false;
  let subscribers = new Map<string, { connection: Redis; subscribed: boolean }>();
  const pending = new Map<string, Set<string>>();
  const keyOf = (node: Redis) => `${node.options.host}:${node.options.port}`;

  const tellConnected = () => {
    if (!closed && subscribers.size > 0 && [...subscribers.values()].every((s) => s.subscribed))
      fanout.connected();
  };

  const onMessage = (master: string, message: string) => {
    if (!message.startsWith('p|')) return fanout.deliver(message);
    const at = message.lastIndexOf('@');
    if (at < 0 || message.slice(at + 1) !== master) return; // another node's or process's probe
    const probeId = message.slice(2, at);
    const awaited = pending.get(probeId);
    if (!awaited?.delete(master) || awaited.size > 0) return;
    pending.delete(probeId);
    fanout.deliver(revocationProbeMessage(probeId));
  };

  /** Subscribes anew on the current masters (after telling the listeners the channel is lost). */
  const resubscribe = () => {
    fanout.lost();
    pending.clear();
    for (const { connection } of subscribers.values()) connection.disconnect();
    subscribers = new Map();
    if (closed) return;
    for (const node of client.nodes('master')) {
      const master = keyOf(node);
      const connection = node.duplicate({
        ...SUBSCRIBER,
        lazyConnect: false,
        retryStrategy: (attempt: number) => Math.min(attempt * 100, 1000),
      });
      const entry = { connection, subscribed: false };
      const mine = subscribers;
      mine.set(master, entry);
      connection.on('error', () => {});
      const lost = () => {
        entry.subscribed = false;
        if (subscribers === mine) fanout.lost();
      };
      connection.on('close', lost);
      connection.on('end', lost);
      connection.on('ready', () => {
        connection.subscribe(channel).then(
          () => {
            entry.subscribed = true;
            if (subscribers === mine) tellConnected();
          },
          () => connection.disconnect(true),
        );
      });
      connection.on('message', (_channel: string, message: string) => onMessage(master, message));
    }
  };

  /** Whether the client's masters are the ones subscribed to. */
  const sameMasters = () => {
    const masters = client.nodes('master').map(keyOf);
    return masters.length === subscribers.size && masters.every((master) => subscribers.has(master));
  };
  const onTopology = () => {
    if (!closed && !sameMasters()) resubscribe();
  };
  client.on('ready', onTopology);
  client.on('refresh', onTopology);
  if (client.status === 'ready') resubscribe();

  return {
    async probe(probeId) {
      const masters = [...subscribers.keys()];
      const nodes = new Map(client.nodes('master').map((node) => [keyOf(node), node]));
      if (masters.length === 0 || masters.some((master) => !nodes.has(master))) return onTopology();
      pending.set(probeId, new Set(masters));
      if (pending.size > MAX_PENDING_PROBES) pending.delete(pending.keys().next().value!);
      const answers = await Promise.all(
        masters.map((master) =>
          probeOnMasterScript.run(nodes.get(master)!, [], [channel, `p|${probeId}@${master}`]),
        ),
      );
      // A demoted master: the slot map is stale. Refresh it; the subscription follows (onTopology).
      if (answers.some((answer) => answer !== 1)) client.refreshSlotsCache();
    },
    async close() {
      closed = true;
      client.off('ready', onTopology);
      client.off('refresh', onTopology);
      await Promise.all(
        [...subscribers.values()].map(({ connection }) =>
          connection.quit().catch(() => connection.disconnect()),
        ),
      );
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
