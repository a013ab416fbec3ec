import type {
  AuthorizationCodeRecord,
  GrantStore,
  RedeemCodeResult,
  RefreshTokenRecord,
  RotateRefreshTokenResult,
} from '@gatehouse/core';
import type { Pool } from 'pg';
import type { Tables } from './schema.js';
import { expiry, instant } from './times.js';

interface CodeRow {
  code_hash: string;
  grant_id: string;
  client_id: string;
  user_id: string;
  redirect_uri: string;
  scope: string;
  code_challenge: string | null;
  auth_time: string;
  expires_at: string;
  consumed_at: string | null;
}

interface RefreshRow {
  token_hash: string;
  grant_id: string;
  client_id: string;
  user_id: string;
  scope: string;
  issued_at: string;
  expires_at: string;
  rotated_at: string | null;
}

/**
 * {@link GrantStore} on PostgreSQL. Consuming a code and rotating a refresh token are each one
 * statement: a conditional `UPDATE … WHERE consumed_at IS NULL … RETURNING` whose row lock makes
 * concurrent callers wait and then fail the condition (exactly one winner under READ COMMITTED),
 * chained to the `INSERT` of the new refresh token, so both land or neither does.
 */
export function postgresGrantStore(pool: Pool, t: Tables): GrantStore {
  // A grant revocation that is still in force ($2 = now), for the record aliased `r`.
  const notRevoked = (now: string) =>
    `NOT EXISTS (SELECT 1 FROM ${t.revokedGrants} g WHERE g.grant_id = r.grant_id AND g.expires_at > ${now})`;

  const findCodeRow = async (codeHash: string, now: number) =>
    (
      await pool.query<CodeRow>(
        `SELECT r.* FROM ${t.codes} r WHERE r.code_hash = $1 AND r.expires_at > $2 AND ${notRevoked('$2')}`,
        [codeHash, instant(now)],
      )
    ).rows[0];

  const findRefreshRow = async (tokenHash: string, now: number) =>
    (
      await pool.query<RefreshRow>(
        `SELECT r.* FROM ${t.refreshTokens} r WHERE r.token_hash = $1 AND r.expires_at > $2 AND ${notRevoked('$2')}`,
        [tokenHash, instant(now)],
      )
    ).rows[0];

  /** INSERT of the refresh token in $3…$9, for each row of the CTE `won` (none when $3 is null). */
  const insertRefreshFromWinner = `
    INSERT INTO ${t.refreshTokens} (token_hash, grant_id, client_id, user_id, scope, issued_at, expires_at)
    SELECT $3::text, $4::text, $5::text, $6::text, $7::text, $8::bigint, $9::bigint FROM won WHERE $3::text IS NOT NULL`;
  const refreshParams = (record: RefreshTokenRecord | null) =>
    record
      ? [
          record.tokenHash,
          record.grantId,
          record.clientId,
          record.userId,
          record.scope,
          instant(record.issuedAt),
          expiry(record.expiresAt),
        ]
      : [null, null, null, null, null, null, null];

  return {
    async saveCode(record) {
      await pool.query(
        `INSERT INTO ${t.codes}
           (code_hash, grant_id, client_id, user_id, redirect_uri, scope, code_challenge, auth_time, expires_at, consumed_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT (code_hash) DO UPDATE SET
           grant_id = EXCLUDED.grant_id, client_id = EXCLUDED.client_id, user_id = EXCLUDED.user_id,
           redirect_uri = EXCLUDED.redirect_uri, scope = EXCLUDED.scope,
           code_challenge = EXCLUDED.code_challenge, auth_time = EXCLUDED.auth_time,
           expires_at = EXCLUDED.expires_at, consumed_at = EXCLUDED.consumed_at`,
        [
          record.codeHash,
          record.grantId,
          record.clientId,
          record.userId,
          record.redirectUri,
          record.scope,
          record.codeChallenge ?? null,
          instant(record.authTime),
          expiry(record.expiresAt),
          record.consumedAt === undefined ? null : instant(record.consumedAt),
        ],
      );
    },

    async findCode(codeHash, now) {
      const row = await findCodeRow(codeHash, now);
      return row ? toCode(row) : null;
    },

    async redeemCode(codeHash, refreshToken, now, keepUntil): Promise<RedeemCodeResult> {
      // The consumed row is kept until keepUntil ($10, never shortened) so that a late replay is
      // still recognised (RFC 6749 §4.1.2); the sweeper drops it by expires_at afterwards.
      const { rows } = await pool.query<CodeRow>(
        `WITH won AS (
           UPDATE ${t.codes} r SET consumed_at = $2, expires_at = GREATEST(r.expires_at, $10::bigint)
           WHERE r.code_hash = $1 AND r.consumed_at IS NULL AND r.expires_at > $2 AND ${notRevoked('$2')}
           RETURNING r.*
         ), stored AS (${insertRefreshFromWinner})
         SELECT * FROM won`,
        [codeHash, instant(now), ...refreshParams(refreshToken), expiry(keepUntil)],
      );
      if (rows[0]) return { status: 'redeemed', code: toCode(rows[0]) };
      // Lost: a fresh read (after the winner committed) tells a replay from an unknown code.
      const current = await findCodeRow(codeHash, now);
      return current?.consumed_at != null
        ? { status: 'replayed', code: toCode(current) }
        : { status: 'invalid' };
    },

    async saveRefreshToken(record) {
      await pool.query(
        `INSERT INTO ${t.refreshTokens} (token_hash, grant_id, client_id, user_id, scope, issued_at, expires_at, rotated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (token_hash) DO UPDATE SET
           grant_id = EXCLUDED.grant_id, client_id = EXCLUDED.client_id, user_id = EXCLUDED.user_id,
           scope = EXCLUDED.scope, issued_at = EXCLUDED.issued_at, expires_at = EXCLUDED.expires_at,
           rotated_at = EXCLUDED.rotated_at`,
        [...refreshParams(record), record.rotatedAt === undefined ? null : instant(record.rotatedAt)],
      );
    },

    async findRefreshToken(tokenHash, now) {
      const row = await findRefreshRow(tokenHash, now);
      return row ? toRefresh(row) : null;
    },

    async rotateRefreshToken(tokenHash, next, now): Promise<RotateRefreshTokenResult> {
      const { rows } = await pool.query<RefreshRow>(
        `WITH won AS (
           UPDATE ${t.refreshTokens} r SET rotated_at = $2
           WHERE r.token_hash = $1 AND r.rotated_at IS NULL AND r.expires_at > $2 AND ${notRevoked('$2')}
           RETURNING r.*
         ), stored AS (${insertRefreshFromWinner})
         SELECT * FROM won`,
        [tokenHash, instant(now), ...refreshParams(next)],
      );
      if (rows[0]) return { status: 'rotated', previous: toRefresh({ ...rows[0], rotated_at: null }) };
      const current = await findRefreshRow(tokenHash, now);
      return current?.rotated_at != null
        ? { status: 'reused', previous: toRefresh(current) }
        : { status: 'invalid' };
    },

    async revokeGrant(grantId, expiresAt) {
      await pool.query(
        `INSERT INTO ${t.revokedGrants} AS g (grant_id, expires_at) VALUES ($1, $2)
         ON CONFLICT (grant_id) DO UPDATE SET expires_at = GREATEST(g.expires_at, EXCLUDED.expires_at)`,
        [grantId, expiry(expiresAt)],
      );
    },

    async revokeAccessToken(jti, expiresAt) {
      await pool.query(
        `INSERT INTO ${t.revokedAccessTokens} AS a (jti, expires_at) VALUES ($1, $2)
         ON CONFLICT (jti) DO UPDATE SET expires_at = GREATEST(a.expires_at, EXCLUDED.expires_at)`,
        [jti, expiry(expiresAt)],
      );
    },

    async isRevoked(jti, grantId, now) {
      // One round trip, two primary-key probes.
      const { rows } = await pool.query<{ revoked: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM ${t.revokedAccessTokens} WHERE jti = $1 AND expires_at > $3)
             OR EXISTS (SELECT 1 FROM ${t.revokedGrants} WHERE grant_id = $2::text AND expires_at > $3) AS revoked`,
        [jti, grantId ?? null, instant(now)],
      );
      return rows[0]!.revoked;
    },
  };
}

function toCode(row: CodeRow): AuthorizationCodeRecord {
  return {
    codeHash: row.code_hash,
    clientId: row.client_id,
    userId: row.user_id,
    grantId: row.grant_id,
    redirectUri: row.redirect_uri,
    scope: row.scope,
    ...(row.code_challenge === null ? {} : { codeChallenge: row.code_challenge }),
    authTime: Number(row.auth_time),
    expiresAt: Number(row.expires_at),
    ...(row.consumed_at === null ? {} : { consumedAt: Number(row.consumed_at) }),
  };
}

function toRefresh(row: RefreshRow): RefreshTokenRecord {
  return {
    tokenHash: row.token_hash,
    grantId: row.grant_id,
    clientId: row.client_id,
    userId: row.user_id,
    scope: row.scope,
    issuedAt: Number(row.issued_at),
    expiresAt: Number(row.expires_at),
    ...(row.rotated_at === null ? {} : { rotatedAt: Number(row.rotated_at) }),
  };
}
