import type { RevocationEvent, RevocationListener } from '../storage/types.js';

/**
 * The building blocks of an engine's pushed revocations (`GrantStore.watchRevocations`) that do not
 * depend on the transport: the message format every Gatehouse engine publishes, and the process's
 * listeners. The Redis engine (pub/sub) and the PostgreSQL engine (`LISTEN/NOTIFY`) both use them,
 * so a message means the same on both and an engine of a host's own can publish the same way.
 *
 * One message per revocation, written by the engine in the step that commits it, with the values
 * in force after it; one for each probe:
 *
 *     g|<expiresAt>|<len>:<instance id><grant id>     t|<expiresAt>|<len>:<instance id><jti>
 *     u|<at> <expiresAt>|<len>:<instance id><user id>  p|<probe id>
 *
 * Times are epoch milliseconds. The instance id is length-prefixed, so neither it nor the id
 * after it needs escaping.
 */
export type RevocationMessage =
  | { readonly probeId: string }
  | { readonly instanceId: string; readonly event: RevocationEvent };

/** The message that sends `probeId` through the channel (see {@link RevocationMessage}). */
export function revocationProbeMessage(probeId: string): string {
  return `p|${probeId}`;
}

/**
 * One revocation from its parts as an engine stores or publishes them: `kind` `g` (grant), `t`
 * (access token) or `u` (a user's mark), the revoked `id`, and `value`: `<expiresAt>`, or for a
 * mark `<at> <expiresAt>`. `undefined` for any other kind.
 */
export function revocationEvent(kind: string, id: string, value: string): RevocationEvent | undefined {
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

/** A channel message read back ({@link RevocationMessage}); `undefined` when it is not one. */
export function decodeRevocationMessage(message: string): RevocationMessage | undefined {
  if (message.startsWith('p|')) return { probeId: message.slice(2) };
  if (message[1] !== '|') return undefined;
  const bar = message.indexOf('|', 2);
  const colon = message.indexOf(':', bar + 1);
  if (bar < 0 || colon < 0) return undefined;
  const length = Number(message.slice(bar + 1, colon));
  if (!Number.isSafeInteger(length) || length < 0 || colon + 1 + length > message.length) return undefined;
  const instanceId = message.slice(colon + 1, colon + 1 + length);
  const event = revocationEvent(message[0]!, message.slice(colon + 1 + length), message.slice(2, bar));
  return event && { instanceId, event };
}

/**
 * The listeners of one engine's channel in one process, by instance: the engine calls
 * {@link RevocationFanout.connected} once its subscription is in place, {@link RevocationFanout.lost}
 * when the connection breaks, and {@link RevocationFanout.deliver} with each message; the fanout
 * tells the listeners concerned. A probe's echo goes to every listener (probes are not per
 * instance).
 */
export interface RevocationFanout {
  /** Whether the engine said `connected` and has not lost the channel since. */
  readonly isConnected: boolean;
  /**
   * Adds `listener` for `instanceId`. A listener added while the channel is connected is told so
   * in a microtask (after `watchRevocations` returned its subscription). Returns its removal.
   */
  add(instanceId: string, listener: RevocationListener): () => void;
  /** The subscription is in place: every listener is told, once per (re)connection. */
  connected(): void;
  /** The channel broke: every listener is told, once until the next `connected`. */
  lost(): void;
  /** A message received on the channel; anything that is not a {@link RevocationMessage} is ignored. */
  deliver(message: string): void;
}

/** A new, empty {@link RevocationFanout}. */
export function revocationFanout(): RevocationFanout {
  const byInstance = new Map<string, Set<RevocationListener>>();
  const all = new Set<RevocationListener>();
  let isConnected = false;
  return {
    get isConnected() {
      return isConnected;
    },
    add(instanceId, listener) {
      let listeners = byInstance.get(instanceId);
      if (!listeners) {
        listeners = new Set();
        byInstance.set(instanceId, listeners);
      }
      listeners.add(listener);
      all.add(listener);
      if (isConnected) queueMicrotask(() => all.has(listener) && isConnected && listener.connected());
      const mine = listeners;
      return () => {
        mine.delete(listener);
        all.delete(listener);
        if (mine.size === 0 && byInstance.get(instanceId) === mine) byInstance.delete(instanceId);
      };
    },
    connected() {
      if (isConnected) return;
      isConnected = true;
      for (const listener of all) listener.connected();
    },
    lost() {
      if (!isConnected) return;
      isConnected = false;
      for (const listener of all) listener.lost();
    },
    deliver(text) {
      const message = decodeRevocationMessage(text);
      if (message === undefined) return;
      if ('probeId' in message) {
        for (const listener of all) listener.echoed(message.probeId);
        return;
      }
      const listeners = byInstance.get(message.instanceId);
      if (listeners) for (const listener of listeners) listener.revoked(message.event);
    },
  };
}
