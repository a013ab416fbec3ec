import type { ConsentStore, RateLimitStore, SessionStore } from '@gatehouse/core';
import type { Pool } from 'pg';
import type { Tables } from './schema.js';
import { expiry, instant } from './times.js';

/** {@link SessionStore} on PostgreSQL: one row per session, by id hash. */
export function postgresSessionStore(pool: Pool, t: Tables): SessionStore {
  return {
    async createSession(record) {
      await pool.query(
        `INSERT INTO ${t.sessions} (id_hash, user_id, created_at, last_seen_at, expires_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (id_hash) DO UPDATE SET user_id = EXCLUDED.user_id, created_at = EXCLUDED.created_at,
           last_seen_at = EXCLUDED.last_seen_at, expires_at = EXCLUDED.expires_at`,
        [
          record.idHash,
          record.userId,
          instant(record.createdAt),
          instant(record.lastSeenAt),
          expiry(record.expiresAt),
        ],
      );
    },
    async findSession(idHash, now) {
      const { rows } = await pool.query<{
        user_id: string;
        created_at: string;
        last_seen_at: string;
        expires_at: string;
      }>(
        `SELECT user_id, created_at, last_seen_at, expires_at FROM ${t.sessions} WHERE id_hash = $1 AND expires_at > $2`,
        [idHash, instant(now)],
      );
      const row = rows[0];
      if (!row) return null;
      return {
        idHash,
        userId: row.user_id,
        createdAt: Number(row.created_at),
        lastSeenAt: Number(row.last_seen_at),
        expiresAt: Number(row.expires_at),
      };
    },
    async touchSession(idHash, lastSeenAt) {
      await pool.query(`UPDATE ${t.sessions} SET last_seen_at = $2 WHERE id_hash = $1 AND expires_at > $2`, [
        idHash,
        instant(lastSeenAt),
      ]);
    },
    async deleteSession(idHash) {
      await pool.query(`DELETE FROM ${t.sessions} WHERE id_hash = $1`, [idHash]);
    },
  };
}

/** {@link ConsentStore} on PostgreSQL: one row per (user, client), replaced on save. */
export function postgresConsentStore(pool: Pool, t: Tables): ConsentStore {
  return {
    async findConsent(userId, clientId, now) {
      const { rows } = await pool.query<{ scope: string; expires_at: string }>(
        `SELECT scope, expires_at FROM ${t.consents} WHERE user_id = $1 AND client_id = $2 AND expires_at > $3`,
        [userId, clientId, instant(now)],
      );
      const row = rows[0];
      return row ? { userId, clientId, scope: row.scope, expiresAt: Number(row.expires_at) } : null;
    },
    async saveConsent(record) {
      await pool.query(
        `INSERT INTO ${t.consents} (user_id, client_id, scope, expires_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (user_id, client_id) DO UPDATE SET scope = EXCLUDED.scope, expires_at = EXCLUDED.expires_at`,
        [record.userId, record.clientId, record.scope, expiry(record.expiresAt)],
      );
    },
  };
}

/**
 * {@link RateLimitStore} on PostgreSQL: fixed windows, counted by one upsert (atomic under
 * concurrency: `ON CONFLICT DO UPDATE` locks the row). `expires_at` is the window's `resetAt`.
 */
export function postgresRateLimitStore(pool: Pool, t: Tables): RateLimitStore {
  return {
    async get(key, now) {
      const { rows } = await pool.query<{ count: number; expires_at: string }>(
        `SELECT count, expires_at FROM ${t.rateLimits} WHERE key = $1 AND expires_at > $2`,
        [key, instant(now)],
      );
      const row = rows[0];
      return row ? { count: row.count, resetAt: Number(row.expires_at) } : null;
    },
    async increment(key, windowMs, now) {
      const { rows } = await pool.query<{ count: number; expires_at: string }>(
        `INSERT INTO ${t.rateLimits} AS w (key, count, expires_at) VALUES ($1, 1, $2::bigint + $3::bigint)
         ON CONFLICT (key) DO UPDATE SET
           count = CASE WHEN w.expires_at <= $2 THEN 1 ELSE w.count + 1 END,
           expires_at = CASE WHEN w.expires_at <= $2 THEN EXCLUDED.expires_at ELSE w.expires_at END
         RETURNING count, expires_at`,
        [key, instant(now), expiry(windowMs)],
      );
      return { count: rows[0]!.count, resetAt: Number(rows[0]!.expires_at) };
    },
    async reset(key) {
      await pool.query(`DELETE FROM ${t.rateLimits} WHERE key = $1`, [key]);
    },
  };
}
