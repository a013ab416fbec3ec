import {
  type ConsentStore,
  type RateLimitStore,
  type SessionRecord,
  type SessionStore,
  wholeExpiry,
  wholeInstant,
} from '@gatehousejs/core/engine';
import { attributesFrom, attributesOf, CONSENT_ATTRIBUTES, SESSION_ATTRIBUTES } from './attributes.js';
import type { Tables } from './schema.js';
import type { Statements } from './statements.js';

/** {@link SessionStore} on PostgreSQL: one row per session, by (instance, id hash). */
export function postgresSessionStore(pool: Statements, t: Tables, instanceId: string): SessionStore {
  return {
    async createSession(record) {
      await pool.query(
        `INSERT INTO ${t.sessions} (instance_id, id_hash, user_id, created_at, last_seen_at, expires_at, attrs)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (instance_id, id_hash) DO UPDATE SET user_id = EXCLUDED.user_id,
           created_at = EXCLUDED.created_at, last_seen_at = EXCLUDED.last_seen_at,
           expires_at = EXCLUDED.expires_at, attrs = EXCLUDED.attrs`,
        [
          instanceId,
          record.idHash,
          record.userId,
          wholeInstant(record.createdAt),
          wholeInstant(record.lastSeenAt),
          wholeExpiry(record.expiresAt),
          attributesOf(record, SESSION_ATTRIBUTES),
        ],
      );
    },
    async findSession(idHash, now) {
      const { rows } = await pool.query<{
        user_id: string;
        created_at: string;
        last_seen_at: string;
        expires_at: string;
        attrs: Record<string, unknown> | null;
      }>(
        `SELECT user_id, created_at, last_seen_at, expires_at, attrs FROM ${t.sessions}
         WHERE instance_id = $1 AND id_hash = $2 AND expires_at > $3`,
        [instanceId, idHash, wholeInstant(now)],
      );
      const row = rows[0];
      if (!row) return null;
      return {
        idHash,
        ...(attributesFrom(row.attrs, SESSION_ATTRIBUTES) as Partial<SessionRecord>),
        userId: row.user_id,
        createdAt: Number(row.created_at),
        lastSeenAt: Number(row.last_seen_at),
        expiresAt: Number(row.expires_at),
      };
    },
    async touchSession(idHash, lastSeenAt) {
      await pool.query(
        `UPDATE ${t.sessions} SET last_seen_at = $3 WHERE instance_id = $1 AND id_hash = $2 AND expires_at > $3`,
        [instanceId, idHash, wholeInstant(lastSeenAt)],
      );
    },
    async deleteSession(idHash) {
      await pool.query(`DELETE FROM ${t.sessions} WHERE instance_id = $1 AND id_hash = $2`, [
        instanceId,
        idHash,
      ]);
    },
  };
}

/** {@link ConsentStore} on PostgreSQL: one row per (instance, user, client), replaced on save. */
export function postgresConsentStore(pool: Statements, t: Tables, instanceId: string): ConsentStore {
  return {
    async findConsent(userId, clientId, now) {
      const { rows } = await pool.query<{
        scope: string;
        expires_at: string;
        attrs: Record<string, unknown> | null;
      }>(
        `SELECT scope, expires_at, attrs FROM ${t.consents}
         WHERE instance_id = $1 AND user_id = $2 AND client_id = $3 AND expires_at > $4`,
        [instanceId, userId, clientId, wholeInstant(now)],
      );
      const row = rows[0];
      if (!row) return null;
      return {
        userId,
        clientId,
        scope: row.scope,
        expiresAt: Number(row.expires_at),
        ...attributesFrom(row.attrs, CONSENT_ATTRIBUTES),
      };
    },
    async saveConsent(record) {
      await pool.query(
        `INSERT INTO ${t.consents} (instance_id, user_id, client_id, scope, expires_at, attrs)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (instance_id, user_id, client_id) DO UPDATE SET scope = EXCLUDED.scope,
           expires_at = EXCLUDED.expires_at, attrs = EXCLUDED.attrs`,
        [
          instanceId,
          record.userId,
          record.clientId,
          record.scope,
          wholeExpiry(record.expiresAt),
          attributesOf(record, CONSENT_ATTRIBUTES),
        ],
      );
    },

    async deleteConsent(userId, clientId) {
      await pool.query(
        `DELETE FROM ${t.consents} WHERE instance_id = $1 AND user_id = $2 AND client_id = $3`,
        [instanceId, userId, clientId],
      );
    },
  };
}

/**
 * {@link RateLimitStore} on PostgreSQL: fixed windows, counted by one upsert (atomic under
 * concurrency: `ON CONFLICT DO UPDATE` locks the row). `expires_at` is the window's `resetAt`.
 */
export function postgresRateLimitStore(pool: Statements, t: Tables, instanceId: string): RateLimitStore {
  return {
    async get(key, now) {
      const { rows } = await pool.query<{ count: number; expires_at: string }>(
        `SELECT count, expires_at FROM ${t.rateLimits} WHERE instance_id = $1 AND key = $2 AND expires_at > $3`,
        [instanceId, key, wholeInstant(now)],
      );
      const row = rows[0];
      return row ? { count: row.count, resetAt: Number(row.expires_at) } : null;
    },
    async increment(key, windowMs, now) {
      const { rows } = await pool.query<{ count: number; expires_at: string }>(
        `INSERT INTO ${t.rateLimits} AS w (instance_id, key, count, expires_at)
         VALUES ($1, $2, 1, $3::bigint + $4::bigint)
         ON CONFLICT (instance_id, key) DO UPDATE SET
           count = CASE WHEN w.expires_at <= $3 THEN 1 ELSE w.count + 1 END,
           expires_at = CASE WHEN w.expires_at <= $3 THEN EXCLUDED.expires_at ELSE w.expires_at END
         RETURNING count, expires_at`,
        [instanceId, key, wholeInstant(now), wholeExpiry(windowMs)],
      );
      return { count: rows[0]!.count, resetAt: Number(rows[0]!.expires_at) };
    },
    async reset(key) {
      await pool.query(`DELETE FROM ${t.rateLimits} WHERE instance_id = $1 AND key = $2`, [instanceId, key]);
    },
  };
}
