import {
  type ClientRecord,
  type ClientRegistry,
  type RegisteredClient,
  type ReplayStore,
  wholeExpiry,
  wholeInstant,
} from '@gatehousejs/core';
import type { Tables } from './schema.js';
import type { Statements } from './statements.js';

interface ClientRow {
  client: ClientRecord;
  registered_at: string;
  expires_at: string | null;
  ext: Record<string, unknown> | null;
}

/**
 * {@link ClientRegistry} on PostgreSQL: one row per (instance, client id), the client as JSONB. A
 * NULL `expires_at` keeps the registration until deleted (the sweeper skips it).
 */
export function postgresClientRegistry(pool: Statements, t: Tables, instanceId: string): ClientRegistry {
  return {
    async saveClient(record) {
      await pool.query(
        `INSERT INTO ${t.registeredClients} (instance_id, client_id, client, registered_at, expires_at, ext)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (instance_id, client_id) DO UPDATE SET client = EXCLUDED.client,
           registered_at = EXCLUDED.registered_at, expires_at = EXCLUDED.expires_at, ext = EXCLUDED.ext`,
        [
          instanceId,
          record.client.id,
          JSON.stringify(record.client),
          wholeInstant(record.registeredAt),
          record.expiresAt === undefined ? null : wholeExpiry(record.expiresAt),
          record.ext === undefined ? null : JSON.stringify(record.ext),
        ],
      );
    },
    async findClient(clientId, now) {
      const { rows } = await pool.query<ClientRow>(
        `SELECT client, registered_at, expires_at, ext FROM ${t.registeredClients}
         WHERE instance_id = $1 AND client_id = $2 AND (expires_at IS NULL OR expires_at > $3)`,
        [instanceId, clientId, wholeInstant(now)],
      );
      const row = rows[0];
      if (!row) return null;
      const registration: RegisteredClient = {
        client: row.client,
        registeredAt: Number(row.registered_at),
        ...(row.expires_at === null ? {} : { expiresAt: Number(row.expires_at) }),
        ...(row.ext === null ? {} : { ext: row.ext }),
      };
      return registration;
    },
    async touchClient(clientId, expiresAt, now) {
      const { rowCount } = await pool.query(
        `UPDATE ${t.registeredClients} SET expires_at = $3
         WHERE instance_id = $1 AND client_id = $2 AND (expires_at IS NULL OR expires_at > $4)`,
        [instanceId, clientId, expiresAt === undefined ? null : wholeExpiry(expiresAt), wholeInstant(now)],
      );
      return (rowCount ?? 0) > 0;
    },
    async deleteClient(clientId) {
      await pool.query(`DELETE FROM ${t.registeredClients} WHERE instance_id = $1 AND client_id = $2`, [
        instanceId,
        clientId,
      ]);
    },
  };
}

/**
 * {@link ReplayStore} on PostgreSQL: one upsert that claims the id when it is new or its previous
 * use has expired. `ON CONFLICT DO UPDATE … WHERE` locks the row, so among concurrent callers one
 * inserts or updates (and gets a row back) and the others see the winner's live row (and get none).
 */
export function postgresReplayStore(pool: Statements, t: Tables, instanceId: string): ReplayStore {
  return {
    async useOnce(id, expiresAt, now) {
      if (expiresAt <= now) return false;
      const { rowCount } = await pool.query(
        `INSERT INTO ${t.replayIds} AS r (instance_id, id, expires_at) VALUES ($1, $2, $3)
         ON CONFLICT (instance_id, id) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE r.expires_at <= $4`,
        [instanceId, id, wholeExpiry(expiresAt), wholeInstant(now)],
      );
      return (rowCount ?? 0) > 0;
    },
  };
}
