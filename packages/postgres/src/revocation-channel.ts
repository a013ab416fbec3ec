import {
  type RevocationEvent,
  type RevocationListener,
  type RevocationSubscription,
  revocationFanout,
  revocationProbeMessage,
} from '@gatehousejs/core/engine';
import pg from 'pg';
import type { Tables } from './schema.js';
import type { Statements } from './statements.js';

/**
 * Pushed revocations on PostgreSQL `LISTEN/NOTIFY`: one channel per schema, one listening
 * connection per process (its own `pg.Client`, opened on the first `watchRevocations` with the
 * pool's settings, reconnected with a capped backoff), shared by all the engine's instances. The
 * revocation statements notify in the statement (so the transaction) that writes (grant-store.ts),
 * with the values in force after it, in the message format of core's `RevocationMessage`; its
 * `revocationFanout` tells the listeners.
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

/**
 * The hub of a schema: `pool` gives the listening connection its settings unless `listenConfig`
 * does, `run` sends the probes and snapshots (as prepared statements, like every statement of the
 * engine).
 *
 * @param listenConfig Where the listening connection goes, when not where the pool's do (a pool
 *   behind PgBouncer in transaction mode): its settings, `Client` class included.
 */
export function revocationHub(
  pool: pg.Pool,
  run: Statements,
  t: Tables,
  listenConfig?: pg.PoolConfig,
): RevocationHub {
  const channel = revocationChannel(t);
  const fanout = revocationFanout();
  let client: pg.Client | undefined;
  let started = false;
  let closed = false;
  let attempt = 0;
  let retry: ReturnType<typeof setTimeout> | undefined;

  const open = async () => {
    if (closed) return;
    // The pool's own settings (connection string, timeouts, application name, and the Client class
    // that picks a host of a list), one dedicated client; or those given for listening.
    const config = listenConfig ?? (pool as unknown as { options: pg.PoolConfig }).options;
    const Client = (config.Client ?? pg.Client) as unknown as typeof pg.Client;
    const listening = new Client(config);
    client = listening;
    const broken = () => {
      if (client !== listening) return;
      client = undefined;
      fanout.lost();
      listening.end().catch(() => {});
      if (closed) return;
      retry = setTimeout(() => void open(), Math.min(100 * 2 ** attempt++, 1000));
      (retry as { unref?: () => void }).unref?.();
    };
    listening.on('error', broken);
    listening.on('end', broken);
    listening.on('notification', (message) => {
      if (message.channel === channel && message.payload !== undefined) fanout.deliver(message.payload);
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
    fanout.connected();
  };

  return {
    channel,
    watch(instanceId, listener) {
      const remove = fanout.add(instanceId, listener);
      if (!started) {
        started = true;
        void open();
      }
      return {
        async probe(probeId) {
          await run.query('SELECT pg_notify($1, $2)', [channel, revocationProbeMessage(probeId)]);
        },
        snapshot: (now) => snapshot(run, t, instanceId, now),
        unsubscribe: remove,
      };
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      const listening = client;
      client = undefined;
      fanout.lost();
      await listening?.end().catch(() => {});
    },
  };
}

/** Every revocation of the instance in force at `now`: one query over the three tables. */
async function snapshot(
  pool: Statements,
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
