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
}

/**
 * {@link ClientRegistry} on PostgreSQL: one row per (instance, client id), the client as JSONB. A
 * NULL `expires_at` keeps the registration until deleted (the sweeper skips it).
 *
 * `maxClients`: the insert of a new registration happens only while the instance has fewer live
 * rows (one statement: counted and inserted in the same snapshot; concurrent inserts may each see
 * the other's row missing, so the bound can be overshot by the registrations in flight at once).
 * A replacement of an existing row is always written. Refused: `StoreFullError`, nothing written.
 */
export function postgresClientRegistry(pool: Statements, t: Tables, instanceId: string): ClientRegistry {
  return {
    async saveClient(record, limits) {
      const { rowCount } = await pool.query(
        `INSERT INTO ${t.registeredClients} (instance_id, client_id, client, registered_at, expires_at, ext)
         SELECT $1, $2, $3, $4, $5, $6
         WHERE $7::bigint IS NULL
           OR EXISTS (SELECT 1 FROM ${t.registeredClients} WHERE instance_id = $1 AND client_id = $2)
           OR (SELECT count(*) FROM ${t.registeredClients}
               WHERE instance_id = $1 AND (expires_at IS NULL OR expires_at > $4)) < $7::bigint
         ON CONFLICT (instance_id, client_id) DO UPDATE SET client = EXCLUDED.client,
           registered_at = EXCLUDED.registered_at, expires_at = EXCLUDED.expires_at, ext = EXCLUDED.ext`,
        [
          instanceId,
          record.client.id,
          JSON.stringify(record.client),
          wholeInstant(record.registeredAt),
          record.expiresAt === undefined ? null : wholeExpiry(record.expiresAt),
          record.ext === undefined ? null : JSON.stringify(record.ext),
          limits?.maxClients ?? null,
        ],
      );
      if ((rowCount ?? 0) === 0)
        throw new StoreFullError('client registry', `at most ${limits?.maxClients} registrations`);
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
