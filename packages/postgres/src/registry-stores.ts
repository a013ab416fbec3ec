import type { ClientRecord } from '@gatehousejs/core';
import {
  type ClientRegistry,
  type RegisteredClient,
  StoreFullError,
  wholeExpiry,
  wholeInstant,
} from '@gatehousejs/core/engine';
import type { Tables } from './schema.js';
import type { Statements } from './statements.js';

interface ClientRow {
  client: ClientRecord;
  registered_at: string;
  expires_at: string | null;
  ext: Record<string, unknown> | null;
  used_at: string | null;
}

/**
 * {@link ClientRegistry} on PostgreSQL: one row per (instance, client id), the client as JSONB. A
 * NULL `expires_at` keeps the registration until deleted (the sweeper skips it); `partition` names
 * who pays for it (NULL: none, never evicted; rows written before migration 007 have none) and
 * `used_at` its last use (NULL: never used).
 *
 * `maxClients` (fair shares, issue 41): one statement, its own transaction, counts the instance's
 * live rows and, when there are that many and the row is new, the heaviest partition's; when the
 * new row's partition (NULL: the unpartitioned rows together) holds fewer, it deletes the heaviest
 * partition's oldest never-used row (else its oldest) and inserts, in the same snapshot; otherwise
 * it writes nothing (`StoreFullError`). Concurrent saves may each see the other's row missing (or
 * pick the same row to evict), so the bound can be overshot by the registrations in flight at
 * once, never more. A replacement of an existing row is always written.
 */
export function postgresClientRegistry(pool: Statements, t: Tables, instanceId: string): ClientRegistry {
  return {
    async saveClient(record, limits) {
      const { rows } = await pool.query<{ saved: boolean; evicted: string | null }>(
        `WITH live AS (
           SELECT client_id, partition, registered_at, used_at FROM ${t.registeredClients}
           WHERE instance_id = $1 AND (expires_at IS NULL OR expires_at > $4)
         ), room AS (
           SELECT $7::bigint IS NULL
             OR EXISTS (SELECT 1 FROM ${t.registeredClients} WHERE instance_id = $1 AND client_id = $2)
             OR (SELECT count(*) FROM live) < $7::bigint AS free
         ), heaviest AS (
           SELECT partition, count(*) AS held FROM live WHERE partition IS NOT NULL
           GROUP BY partition ORDER BY held DESC LIMIT 1
         ), victim AS (
           SELECT live.client_id FROM live, heaviest, room
           WHERE NOT room.free AND live.partition = heaviest.partition
             AND (SELECT count(*) FROM live WHERE partition IS NOT DISTINCT FROM $8::text) < heaviest.held
           ORDER BY live.used_at IS NOT NULL, live.registered_at, live.client_id
           LIMIT 1
         ), evicted AS (
           DELETE FROM ${t.registeredClients}
           WHERE instance_id = $1 AND client_id IN (SELECT client_id FROM victim)
           RETURNING client_id
         ), saved AS (
           INSERT INTO ${t.registeredClients}
             (instance_id, client_id, client, registered_at, expires_at, ext, partition, used_at)
           SELECT $1, $2, $3, $4, $5, $6, $8::text, $9 FROM room
           WHERE room.free OR EXISTS (SELECT 1 FROM victim)
           ON CONFLICT (instance_id, client_id) DO UPDATE SET client = EXCLUDED.client,
             registered_at = EXCLUDED.registered_at, expires_at = EXCLUDED.expires_at, ext = EXCLUDED.ext,
             partition = EXCLUDED.partition, used_at = EXCLUDED.used_at
           RETURNING 1
         )
         SELECT EXISTS (SELECT 1 FROM saved) AS saved, (SELECT client_id FROM evicted) AS evicted`,
        [
          instanceId,
          record.client.id,
          JSON.stringify(record.client),
          wholeInstant(record.registeredAt),
          record.expiresAt === undefined ? null : wholeExpiry(record.expiresAt),
          record.ext === undefined ? null : JSON.stringify(record.ext),
          limits?.maxClients ?? null,
          // An empty name is no partition, as on every engine.
          limits?.partition || null,
          record.usedAt === undefined ? null : wholeInstant(record.usedAt),
        ],
      );
      const outcome = rows[0];
      if (!outcome?.saved)
        throw new StoreFullError('client registry', `at most ${limits?.maxClients} registrations`);
      return outcome.evicted === null ? {} : { evictedClientId: outcome.evicted };
    },
    async findClient(clientId, now) {
      const { rows } = await pool.query<ClientRow>(
        `SELECT client, registered_at, expires_at, ext, used_at FROM ${t.registeredClients}
         WHERE instance_id = $1 AND client_id = $2 AND (expires_at IS NULL OR expires_at > $3)`,
        [instanceId, clientId, wholeInstant(now)],
      );
      const row = rows[0];
      return row ? registrationOf(row) : null;
    },
    async touchClient(clientId, expiresAt, now) {
      const { rowCount } = await pool.query(
        `UPDATE ${t.registeredClients} SET expires_at = $3, used_at = $4
         WHERE instance_id = $1 AND client_id = $2 AND (expires_at IS NULL OR expires_at > $4)`,
        [instanceId, clientId, expiresAt === undefined ? null : wholeExpiry(expiresAt), wholeInstant(now)],
      );
      return (rowCount ?? 0) > 0;
    },
    async listClients(now, limit) {
      const { rows } = await pool.query<ClientRow>(
        `SELECT client, registered_at, expires_at, ext, used_at FROM ${t.registeredClients}
         WHERE instance_id = $1 AND (expires_at IS NULL OR expires_at > $2)
         ORDER BY registered_at DESC, client_id LIMIT $3`,
        [instanceId, wholeInstant(now), limit],
      );
      return rows.map(registrationOf);
    },
    async deleteClient(clientId) {
      await pool.query(`DELETE FROM ${t.registeredClients} WHERE instance_id = $1 AND client_id = $2`, [
        instanceId,
        clientId,
      ]);
    },
  };
}

function registrationOf(row: ClientRow): RegisteredClient {
  return {
    client: row.client,
    registeredAt: Number(row.registered_at),
    ...(row.expires_at === null ? {} : { expiresAt: Number(row.expires_at) }),
    ...(row.ext === null ? {} : { ext: row.ext }),
    ...(row.used_at === null ? {} : { usedAt: Number(row.used_at) }),
  };
}
