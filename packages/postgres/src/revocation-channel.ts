import type { RevocationEvent, RevocationListener, RevocationSubscription } from '@gatehousejs/core';
import pg from 'pg';
import type { Tables } from './schema.js';

/**
 * Pushed revocations on PostgreSQL `LISTEN/NOTIFY`: one channel per schema, one listening
 * connection per process (its own `pg.Client`, opened on the first `watchRevocations` with the
 * pool's settings, reconnected with a capped backoff), shared by all the engine's instances. The
 * revocation statements notify in the statement (so the transaction) that writes (grant-store.ts),
 * with the values in force after it:
 *
 *     g|<expiresAt>|<len>:<instance id><grant id>     t|<expiresAt>|<len>:<instance id><jti>
 *     u|<at> <expiresAt>|<len>:<instance id><user id>  p|<probe id>
 *
 * PostgreSQL delivers notifications at commit, in commit order, so a probe notified after a
 * revocation committed arrives after it (the mirror's lag proof).
 */
export interface RevocationHub {
  /** The channel name, for `pg_notify`. */
  readonly channel: string;
  watch(instanceId: string, listener: RevocationListener): RevocationSubscription;
  /** Closes the listening connection (listeners are told the channel is lost). */
  close(): Promise<void>;
}

/** The channel of a schema: a channel name has at most 63 bytes (longer schema names are cut). */
export function revocationChannel(t: Tables): string {
  return `gatehouse_revocations:${t.schema.slice(1, -1)}`.slice(0, 63);
}

export function revocationHub(pool: pg.Pool, t: Tables): RevocationHub {
  const channel = revocationChannel(t);
  const byInstance = new Map<string, Set<RevocationListener>>();
  const all = new Set<RevocationListener>();
  let client: pg.Client | undefined;
  let started = false;
  let connected = false;
  let closed = false;
  let attempt = 0;
  let retry: ReturnType<typeof setTimeout> | undefined;

  const lose = () => {
    if (!connected) return;
    connected = false;
    for (const listener of all) listener.lost();
  };

  const open = async () => {
    if (closed) return;
    // The pool's own settings (connection string, timeouts, application name), one dedicated client.
    const listening = new pg.Client((pool as unknown as { options: pg.ClientConfig }).options);
    client = listening;
    const broken = () => {
      if (client !== listening) return;
      client = undefined;
      lose();
      listening.end().catch(() => {});
      if (closed) return;
      retry = setTimeout(() => void open(), Math.min(100 * 2 ** attempt++, 1000));
      (retry as { unref?: () => void }).unref?.();
    };
    listening.on('error', broken);
    listening.on('end', broken);
    listening.on('notification', (message) => {
      if (message.channel === channel && message.payload !== undefined) deliver(message.payload);
    });
    try {
      await listening.connect();
      await listening.query(`LISTEN "${channel.replace(/"/g, '""')}"`);
    } catch {
      broken();
      return;
    }
    if (client !== listening || closed) return;
    attempt = 0;
    connected = true;
    for (const listener of all) listener.connected();
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
    const listeners = byInstance.get(instanceId);
    if (!listeners) return;
    const event = parseEvent(message[0]!, id, value);
    if (event) for (const listener of listeners) listener.revoked(event);
  };

  return {
    channel,
    watch(instanceId, listener) {
      let listeners = byInstance.get(instanceId);
      if (!listeners) {
        listeners = new Set();
        byInstance.set(instanceId, listeners);
      }
      listeners.add(listener);
      all.add(listener);
      if (!started) {
        started = true;
        void open();
      }
      if (connected) queueMicrotask(() => all.has(listener) && connected && listener.connected());
      return {
        async probe(probeId) {
          await pool.query('SELECT pg_notify($1, $2)', [channel, `p|${probeId}`]);
        },
        snapshot: (now) => snapshot(pool, t, instanceId, now),
        unsubscribe() {
          listeners.delete(listener);
          all.delete(listener);
        },
      };
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      const listening = client;
      client = undefined;
      lose();
      await listening?.end().catch(() => {});
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

/** Every revocation of the instance in force at `now`: one query over the three tables. */
async function snapshot(
  pool: pg.Pool,
  t: Tables,
  instanceId: string,
  now: number,
): Promise<RevocationEvent[]> {
  const { rows } = await pool.query<{
    kind: 'g' | 't' | 'u';
    id: string;
    at: string | null;
    expires_at: string;
  }>(
    `SELECT 'g' AS kind, grant_id AS id, NULL::bigint AS at, expires_at FROM ${t.revokedGrants}
       WHERE instance_id = $1 AND expires_at > $2
     UNION ALL
     SELECT 't', jti, NULL, expires_at FROM ${t.revokedAccessTokens} WHERE instance_id = $1 AND expires_at > $2
     UNION ALL
     SELECT 'u', user_id, revoked_at, expires_at FROM ${t.revokedSubjects} WHERE instance_id = $1 AND expires_at > $2`,
    [instanceId, Math.floor(now)],
  );
  return rows.map((row): RevocationEvent => {
    const expiresAt = Number(row.expires_at);
    if (row.kind === 'u') return { kind: 'subject', id: row.id, at: Number(row.at), expiresAt };
    return { kind: row.kind === 'g' ? 'grant' : 'token', id: row.id, expiresAt };
  });
}
