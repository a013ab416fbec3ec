import { type KeyValueStore, wholeExpiry, wholeInstant } from '@gatehousejs/core/engine';
import type { Tables } from './schema.js';
import type { Statements } from './statements.js';

/**
 * {@link KeyValueStore} on PostgreSQL: one row per (instance, key) in `key_values`. Each method is
 * one statement, atomic under READ COMMITTED: the row lock makes a concurrent caller wait and then
 * re-check its condition against the winner's row.
 * - `add` is `INSERT … ON CONFLICT DO UPDATE … WHERE <the row has expired>`: of concurrent callers,
 *   one inserts (or replaces an expired row) and gets a row back, the others see a live row;
 * - `take` is `DELETE … RETURNING`: only one caller deletes the row;
 * - `swap` is `UPDATE … WHERE value = <expected>`: after the first swap the value differs;
 * - `increment` is one upsert that adds to a live counter (keeping its expiry) or starts an
 *   expired or absent one, `RETURNING` the count: concurrent callers wait on the row lock in turn.
 * Expired rows are invisible at once (every statement compares `expires_at` with `now`) and swept.
 */
export function postgresKeyValueStore(pool: Statements, t: Tables, instanceId: string): KeyValueStore {
  return {
    async get(key, now) {
      const { rows } = await pool.query<{ value: string }>(
        `SELECT value FROM ${t.keyValues} WHERE instance_id = $1 AND key = $2 AND expires_at > $3`,
        [instanceId, encode(key), wholeInstant(now)],
      );
      return rows[0] ? decode(rows[0].value) : null;
    },
    async set(key, value, expiresAt) {
      await pool.query(
        `INSERT INTO ${t.keyValues} (instance_id, key, value, expires_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (instance_id, key) DO UPDATE SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at`,
        [instanceId, encode(key), encode(value), wholeExpiry(expiresAt)],
      );
    },
    async add(key, value, expiresAt, now) {
      const { rowCount } = await pool.query(
        `INSERT INTO ${t.keyValues} AS e (instance_id, key, value, expires_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (instance_id, key) DO UPDATE SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at
         WHERE e.expires_at <= $5`,
        [instanceId, encode(key), encode(value), wholeExpiry(expiresAt), wholeInstant(now)],
      );
      return (rowCount ?? 0) > 0;
    },
    async take(key, now) {
      const { rows } = await pool.query<{ value: string }>(
        `DELETE FROM ${t.keyValues} WHERE instance_id = $1 AND key = $2 AND expires_at > $3 RETURNING value`,
        [instanceId, encode(key), wholeInstant(now)],
      );
      return rows[0] ? decode(rows[0].value) : null;
    },
    async swap(key, expected, value, expiresAt, now) {
      const { rowCount } = await pool.query(
        `UPDATE ${t.keyValues} SET value = $4, expires_at = $5
         WHERE instance_id = $1 AND key = $2 AND value = $3 AND expires_at > $6`,
        [instanceId, encode(key), encode(expected), encode(value), wholeExpiry(expiresAt), wholeInstant(now)],
      );
      return (rowCount ?? 0) > 0;
    },
    async delete(key) {
      await pool.query(`DELETE FROM ${t.keyValues} WHERE instance_id = $1 AND key = $2`, [
        instanceId,
        encode(key),
      ]);
    },
    async increment(key, by, expiresAt, now) {
      // A counter's value is its decimal count: digits, which the encoding leaves as they are.
      const { rows } = await pool.query<{ value: string }>(
        `INSERT INTO ${t.keyValues} AS e (instance_id, key, value, expires_at) VALUES ($1, $2, $3::bigint::text, $4)
         ON CONFLICT (instance_id, key) DO UPDATE SET
           value = CASE WHEN e.expires_at <= $5 THEN EXCLUDED.value ELSE (e.value::bigint + $3::bigint)::text END,
           expires_at = CASE WHEN e.expires_at <= $5 THEN EXCLUDED.expires_at ELSE e.expires_at END
         RETURNING value`,
        [instanceId, encode(key), String(by), wholeExpiry(expiresAt), wholeInstant(now)],
      );
      return Number(rows[0]!.value);
    },
  };
}

/**
 * `text` cannot hold U+0000, which the contract's opaque strings may: `%` and U+0000 are
 * percent-encoded, a one-to-one mapping, so equal strings stay equal (`swap`'s comparison) and
 * distinct keys distinct. JSON, what callers store, never holds a raw U+0000 and rarely a `%`.
 */
function encode(text: string): string {
  return text.replace(/[%\0]/g, (character) => (character === '%' ? '%25' : '%00'));
}

function decode(text: string): string {
  return text.replace(/%(25|00)/g, (_, code: string) => (code === '25' ? '%' : '\0'));
}
