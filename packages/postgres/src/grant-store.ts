import type { Subject } from '@gatehousejs/core/engine';
import {
  type AuthorizationCodeRecord,
  codeRefusal,
  type ExchangeCodeResult,
  type ExchangeRefreshTokenResult,
  type GrantStore,
  offlineAccessGranted,
  type RedeemCodeResult,
  type RefreshTokenRecord,
  type RotateRefreshTokenResult,
  refreshTokenRefusal,
  subjectId,
  wholeExpiry,
  wholeInstant,
} from '@gatehousejs/core/engine';
import { attributesFrom, attributesOf, CODE_ATTRIBUTES, REFRESH_ATTRIBUTES } from './attributes.js';
import type { RevocationHub } from './revocation-channel.js';
import type { Tables } from './schema.js';
import type { Statements } from './statements.js';

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
  attrs: Record<string, unknown> | null;
}

interface RefreshRow {
  token_hash: string;
  grant_id: string;
  client_id: string;
  subject_kind: 'user' | 'client';
  subject_id: string;
  scope: string;
  issued_at: string;
  expires_at: string;
  rotated_at: string | null;
  attrs: Record<string, unknown> | null;
}

/**
 * {@link GrantStore} on PostgreSQL, for one instance: every statement names `instance_id = $1`
 * (part of every primary key), so no lookup reaches another instance's rows. Consuming a code and
 * rotating a refresh token are each one statement: a conditional `UPDATE … WHERE consumed_at IS NULL
 * … RETURNING` whose row lock makes concurrent callers wait and then fail the condition (exactly one
 * winner under READ COMMITTED), chained to the `INSERT` of the new refresh token, so both land or
 * neither does.
 */
export function postgresGrantStore(
  pool: Statements,
  t: Tables,
  instanceId: string,
  hub: RevocationHub,
): GrantStore {
  /** Names the instance in the channel's messages. */
  const tag = `${instanceId.length}:${instanceId}`;
  // Neither a grant revocation of this instance nor a mark of the record's user covering its issue
  // time is in force at `now` ($2), for the record aliased `r`. `user` names the user of `r` (codes
  // always have one; a refresh token only when its subject is a user), `issued` its issue time.
  //
  // `OFFSET 0` keeps each NOT EXISTS a correlated subplan: one primary-key probe per record,
  // whatever the planner thinks of the table's size. Turned into an anti join, a prepared
  // statement's generic plan made while `revoked_grants` was empty (a new deployment; tables not
  // yet analyzed) scanned every revoked grant of the instance and filtered on `grant_id`, a plan it
  // then kept for the connection's life: 22 ms per lookup with 50,000 revoked grants instead of
  // 0.1 ms (postgres-engine.test.ts checks the plan). Without the join, a rotation's UPDATE also
  // carries no row marks for the revocation tables: about a third less backend CPU per rotation
  // and per code redemption (bench/pg-statements.mjs).
  const notRevoked = (user: 'r.user_id' | 'r.subject_id', issued: 'r.auth_time' | 'r.issued_at') =>
    `NOT EXISTS (SELECT 1 FROM ${t.revokedGrants} g
       WHERE g.instance_id = r.instance_id AND g.grant_id = r.grant_id AND g.expires_at > $2 OFFSET 0)
     AND NOT EXISTS (SELECT 1 FROM ${t.revokedSubjects} s
       WHERE s.instance_id = r.instance_id AND s.user_id = ${user} AND s.expires_at > $2 AND ${issued} <= s.revoked_at
         ${user === 'r.subject_id' ? "AND r.subject_kind = 'user'" : ''} OFFSET 0)`;
  const codeNotRevoked = notRevoked('r.user_id', 'r.auth_time');
  const refreshNotRevoked = notRevoked('r.subject_id', 'r.issued_at');

  // The token paths' statement texts, built once: each call then hands the same string to the
  // prepared-statement cache (statements.ts), which looks it up by text.
  const findCodeText = `SELECT r.* FROM ${t.codes} r
         WHERE r.instance_id = $1 AND r.code_hash = $3 AND r.expires_at > $2 AND ${codeNotRevoked}`;
  const findRefreshText = `SELECT r.* FROM ${t.refreshTokens} r
         WHERE r.instance_id = $1 AND r.token_hash = $3 AND r.expires_at > $2 AND ${refreshNotRevoked}`;

  const findCodeRow = async (codeHash: string, now: number) =>
    (await pool.query<CodeRow>(findCodeText, [instanceId, wholeInstant(now), codeHash])).rows[0];

  const findRefreshRow = async (tokenHash: string, now: number) =>
    (await pool.query<RefreshRow>(findRefreshText, [instanceId, wholeInstant(now), tokenHash])).rows[0];

  /** INSERT of the refresh token in $4…$12, for each row of the CTE `won` (none when $4 is null). */
  const insertRefreshFromWinner = `
    INSERT INTO ${t.refreshTokens}
      (instance_id, token_hash, grant_id, client_id, subject_kind, subject_id, scope, issued_at, expires_at, attrs)
    SELECT $1, $4::text, $5::text, $6::text, $7::text, $8::text, $9::text, $10::bigint, $11::bigint, $12::jsonb
    FROM won WHERE $4::text IS NOT NULL`;
  const refreshParams = (record: RefreshTokenRecord | null) =>
    record
      ? [
          record.tokenHash,
          record.grantId,
          record.clientId,
          record.subject.kind,
          subjectId(record.subject),
          record.scope,
          wholeInstant(record.issuedAt),
          wholeExpiry(record.expiresAt),
          attributesOf(record, REFRESH_ATTRIBUTES),
        ]
      : [null, null, null, null, null, null, null, null, null];
  const redeemText = `WITH won AS (
           UPDATE ${t.codes} r SET consumed_at = $2, expires_at = GREATEST(r.expires_at, $13::bigint)
           WHERE r.instance_id = $1 AND r.code_hash = $3 AND r.consumed_at IS NULL AND r.expires_at > $2
             AND ${codeNotRevoked}
           RETURNING r.*
         ), stored AS (${insertRefreshFromWinner})
         SELECT * FROM won`;
  const rotateText = `WITH won AS (
           UPDATE ${t.refreshTokens} r SET rotated_at = $2
           WHERE r.instance_id = $1 AND r.token_hash = $3 AND r.rotated_at IS NULL AND r.expires_at > $2
             AND ${refreshNotRevoked}
           RETURNING r.*
         ), stored AS (${insertRefreshFromWinner})
         SELECT * FROM won`;

  // The exchanges (exchangeCode, exchangeRefreshToken): one statement each. The conditional UPDATE
  // carries every check of the exchange, so it wins only when all pass; the refresh token it
  // stores is built from the row it updated (`won`). When it does not win, the same statement
  // returns the row as its snapshot saw it (one-time filter: not read at all when it won), and the
  // store names the refusal with the contract's own rules (codeRefusal, refreshTokenRefusal).
  // `$ext #> '{dpopJkt}'` is the record's DPoP binding when it is a string (boundJkt).
  const notBoundElsewhere = (jkt: string) =>
    `(jsonb_typeof(r.attrs #> '{ext,dpopJkt}') IS DISTINCT FROM 'string' OR r.attrs #>> '{ext,dpopJkt}' = ${jkt})`;
  const exchangeCodeText = `WITH won AS (
           UPDATE ${t.codes} r SET consumed_at = $2, expires_at = GREATEST(r.expires_at, $4::bigint)
           WHERE r.instance_id = $1 AND r.code_hash = $3 AND r.consumed_at IS NULL AND r.expires_at > $2
             AND r.client_id = $5
             AND CASE WHEN r.redirect_uri = '' THEN $7::boolean ELSE r.redirect_uri = $6::text END
             AND r.code_challenge IS NOT DISTINCT FROM $8::text
             AND ${notBoundElsewhere('$9::text')}
             AND ${codeNotRevoked}
           RETURNING r.*
         ), stored AS (
           INSERT INTO ${t.refreshTokens}
             (instance_id, token_hash, grant_id, client_id, subject_kind, subject_id, scope, issued_at, expires_at, attrs)
           SELECT $1, $10::text, w.grant_id, w.client_id, 'user', w.user_id, w.scope, $2, $11::bigint,
                  (w.attrs - 'nonce' - 'ext')
                    || jsonb_build_object('authTime', w.auth_time, 'grantedAt', $2::bigint)
                    || CASE WHEN e.ext = '{}'::jsonb THEN '{}'::jsonb ELSE jsonb_build_object('ext', e.ext) END
           FROM won w,
                LATERAL (SELECT (coalesce(w.attrs -> 'ext', '{}'::jsonb) - 'dpopJkt')
                                || CASE WHEN $12::text IS NULL THEN '{}'::jsonb
                                        ELSE jsonb_build_object('dpopJkt', $12::text) END AS ext) e
           WHERE $10::text IS NOT NULL
             -- OpenID Connect Core §11 (offlineAccessGranted): no refresh token for openid without offline_access.
             AND (position(' openid ' IN ' ' || w.scope || ' ') = 0
                  OR position(' offline_access ' IN ' ' || w.scope || ' ') > 0)
         )
         SELECT true AS won, w.* FROM won w
         UNION ALL
         SELECT false, r.* FROM ${t.codes} r
         WHERE NOT EXISTS (SELECT 1 FROM won)
           AND r.instance_id = $1 AND r.code_hash = $3 AND r.expires_at > $2 AND ${codeNotRevoked}`;
  const exchangeRefreshText = `WITH won AS (
           UPDATE ${t.refreshTokens} r SET rotated_at = $2
           WHERE r.instance_id = $1 AND r.token_hash = $3 AND r.rotated_at IS NULL AND r.expires_at > $2
             AND r.client_id = $4
             AND ${notBoundElsewhere('$5::text')}
             AND ${refreshNotRevoked}
           RETURNING r.*
         ), stored AS (
           INSERT INTO ${t.refreshTokens}
             (instance_id, token_hash, grant_id, client_id, subject_kind, subject_id, scope, issued_at, expires_at, attrs)
           SELECT $1, $6::text, w.grant_id, w.client_id, w.subject_kind, w.subject_id, w.scope, $2, $7::bigint,
                  CASE WHEN $8::text IS NULL THEN w.attrs
                       ELSE w.attrs || jsonb_build_object('ext',
                              coalesce(w.attrs -> 'ext', '{}'::jsonb) || jsonb_build_object('dpopJkt', $8::text)) END
           FROM won w
         )
         SELECT true AS won, w.* FROM won w
         UNION ALL
         SELECT false, r.* FROM ${t.refreshTokens} r
         WHERE NOT EXISTS (SELECT 1 FROM won)
           AND r.instance_id = $1 AND r.token_hash = $3 AND r.expires_at > $2 AND ${refreshNotRevoked}`;

  const store: GrantStore = {
    async saveCode(record) {
      await pool.query(
        `INSERT INTO ${t.codes}
           (instance_id, code_hash, grant_id, client_id, user_id, redirect_uri, scope, code_challenge,
            auth_time, expires_at, consumed_at, attrs)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
         ON CONFLICT (instance_id, code_hash) DO UPDATE SET
           grant_id = EXCLUDED.grant_id, client_id = EXCLUDED.client_id, user_id = EXCLUDED.user_id,
           redirect_uri = EXCLUDED.redirect_uri, scope = EXCLUDED.scope,
           code_challenge = EXCLUDED.code_challenge, auth_time = EXCLUDED.auth_time,
           expires_at = EXCLUDED.expires_at, consumed_at = EXCLUDED.consumed_at, attrs = EXCLUDED.attrs`,
        [
          instanceId,
          record.codeHash,
          record.grantId,
          record.clientId,
          record.userId,
          record.redirectUri,
          record.scope,
          record.codeChallenge ?? null,
          wholeInstant(record.authTime),
          wholeExpiry(record.expiresAt),
          record.consumedAt === undefined ? null : wholeInstant(record.consumedAt),
          attributesOf(record, CODE_ATTRIBUTES),
        ],
      );
    },

    async findCode(codeHash, now) {
      const row = await findCodeRow(codeHash, now);
      return row ? toCode(row) : null;
    },

    async redeemCode(codeHash, refreshToken, now, keepUntil): Promise<RedeemCodeResult> {
      // The consumed row is kept until keepUntil ($13, never shortened) so that a late replay is
      // still recognised (RFC 6749 §4.1.2); the sweeper drops it by expires_at afterwards.
      const { rows } = await pool.query<CodeRow>(redeemText, [
        instanceId,
        wholeInstant(now),
        codeHash,
        ...refreshParams(refreshToken),
        wholeExpiry(keepUntil),
      ]);
      if (rows[0]) return { status: 'redeemed', code: toCode(rows[0]) };
      // Lost: a fresh read (after the winner committed) tells a replay from an unknown code.
      const current = await findCodeRow(codeHash, now);
      return current?.consumed_at != null
        ? { status: 'replayed', code: toCode(current) }
        : { status: 'invalid' };
    },

    async exchangeCode(codeHash, exchange, now): Promise<ExchangeCodeResult> {
      const mint = exchange.refreshToken;
      const { rows } = await pool.query<CodeRow & { won: boolean }>(exchangeCodeText, [
        instanceId,
        wholeInstant(now),
        codeHash,
        wholeExpiry(exchange.keepUntil),
        exchange.clientId,
        exchange.redirectUri ?? null,
        exchange.redirectUriFitsDefault,
        exchange.verifierChallenge ?? null,
        exchange.dpopJkt ?? null,
        mint?.tokenHash ?? null,
        mint === undefined ? null : wholeExpiry(mint.expiresAt),
        mint?.dpopJkt ?? null,
      ]);
      const row = rows[0];
      if (!row) return { status: 'invalid' };
      const code = toCode(row);
      if (row.won)
        return {
          status: 'redeemed',
          code,
          refreshTokenStored: mint !== undefined && offlineAccessGranted(code.scope),
        };
      const reason = codeRefusal(code, exchange);
      if (reason !== undefined) return { status: 'refused', reason };
      if (code.consumedAt !== undefined) return { status: 'replayed', code };
      // Every check passed on the snapshot, yet the update did not win: it waited for a concurrent
      // exchange and found the row changed. A fresh read tells a replay from a revocation.
      const current = await findCodeRow(codeHash, now);
      return current?.consumed_at != null
        ? { status: 'replayed', code: toCode(current) }
        : { status: 'invalid' };
    },

    async exchangeRefreshToken(tokenHash, exchange, now): Promise<ExchangeRefreshTokenResult> {
      const { rows } = await pool.query<RefreshRow & { won: boolean }>(exchangeRefreshText, [
        instanceId,
        wholeInstant(now),
        tokenHash,
        exchange.clientId,
        exchange.dpopJkt ?? null,
        exchange.next.tokenHash,
        wholeExpiry(exchange.next.expiresAt),
        exchange.next.dpopJkt ?? null,
      ]);
      const row = rows[0];
      if (!row) return { status: 'invalid' };
      if (row.won) return { status: 'rotated', previous: toRefresh({ ...row, rotated_at: null }) };
      const previous = toRefresh(row);
      const reason = refreshTokenRefusal(previous, exchange);
      if (reason !== undefined) return { status: 'refused', reason };
      if (previous.rotatedAt !== undefined) return { status: 'reused', previous };
      const current = await findRefreshRow(tokenHash, now);
      return current?.rotated_at != null
        ? { status: 'reused', previous: toRefresh(current) }
        : { status: 'invalid' };
    },

    async saveRefreshToken(record) {
      await pool.query(
        `INSERT INTO ${t.refreshTokens}
           (instance_id, token_hash, grant_id, client_id, subject_kind, subject_id, scope, issued_at,
            expires_at, attrs, rotated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (instance_id, token_hash) DO UPDATE SET
           grant_id = EXCLUDED.grant_id, client_id = EXCLUDED.client_id,
           subject_kind = EXCLUDED.subject_kind, subject_id = EXCLUDED.subject_id,
           scope = EXCLUDED.scope, issued_at = EXCLUDED.issued_at, expires_at = EXCLUDED.expires_at,
           attrs = EXCLUDED.attrs, rotated_at = EXCLUDED.rotated_at`,
        [
          instanceId,
          ...refreshParams(record),
          record.rotatedAt === undefined ? null : wholeInstant(record.rotatedAt),
        ],
      );
    },

    async findRefreshToken(tokenHash, now) {
      const row = await findRefreshRow(tokenHash, now);
      return row ? toRefresh(row) : null;
    },

    async rotateRefreshToken(tokenHash, next, now): Promise<RotateRefreshTokenResult> {
      const { rows } = await pool.query<RefreshRow>(rotateText, [
        instanceId,
        wholeInstant(now),
        tokenHash,
        ...refreshParams(next),
      ]);
      if (rows[0]) return { status: 'rotated', previous: toRefresh({ ...rows[0], rotated_at: null }) };
      const current = await findRefreshRow(tokenHash, now);
      return current?.rotated_at != null
        ? { status: 'reused', previous: toRefresh(current) }
        : { status: 'invalid' };
    },

    // Each revocation notifies the engine's channel in its own statement, so its own transaction:
    // the notification is delivered at commit, with the values in force (pushed revocations).
    async revokeGrant(grantId, expiresAt) {
      await pool.query(
        `WITH r AS (
           INSERT INTO ${t.revokedGrants} AS g (instance_id, grant_id, expires_at) VALUES ($1, $2, $3)
           ON CONFLICT (instance_id, grant_id) DO UPDATE SET expires_at = GREATEST(g.expires_at, EXCLUDED.expires_at)
           RETURNING expires_at)
         SELECT pg_notify($4, 'g|' || r.expires_at || '|' || $5) FROM r`,
        [instanceId, grantId, wholeExpiry(expiresAt), hub.channel, tag + grantId],
      );
    },

    async revokeAccessToken(jti, expiresAt) {
      await pool.query(
        `WITH r AS (
           INSERT INTO ${t.revokedAccessTokens} AS a (instance_id, jti, expires_at) VALUES ($1, $2, $3)
           ON CONFLICT (instance_id, jti) DO UPDATE SET expires_at = GREATEST(a.expires_at, EXCLUDED.expires_at)
           RETURNING expires_at)
         SELECT pg_notify($4, 't|' || r.expires_at || '|' || $5) FROM r`,
        [instanceId, jti, wholeExpiry(expiresAt), hub.channel, tag + jti],
      );
    },

    async revokeSubject(userId, at, expiresAt) {
      await pool.query(
        `WITH r AS (
           INSERT INTO ${t.revokedSubjects} AS s (instance_id, user_id, revoked_at, expires_at) VALUES ($1, $2, $3, $4)
           ON CONFLICT (instance_id, user_id) DO UPDATE SET revoked_at = GREATEST(s.revoked_at, EXCLUDED.revoked_at),
             expires_at = GREATEST(s.expires_at, EXCLUDED.expires_at)
           RETURNING revoked_at, expires_at)
         SELECT pg_notify($5, 'u|' || r.revoked_at || ' ' || r.expires_at || '|' || $6) FROM r`,
        // The mark's time rounds up and issue times round down: a fraction errs towards revoking.
        [instanceId, userId, wholeExpiry(at), wholeExpiry(expiresAt), hub.channel, tag + userId],
      );
    },

    // Shared by processes: each bearer check would be a round trip, so the mirror is the default
    // (an instance's `pushedRevocations: false` still asks per request).
    pushedRevocationsByDefault: true,

    watchRevocations(listener) {
      return hub.watch(instanceId, listener);
    },

    async isRevoked(jti, grantId, now, userId, issuedAt) {
      // One round trip, three primary-key probes (the user's only when a user is given).
      const { rows } = await pool.query<{ revoked: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM ${t.revokedAccessTokens}
                         WHERE instance_id = $1 AND jti = $2 AND expires_at > $4)
             OR EXISTS (SELECT 1 FROM ${t.revokedGrants}
                         WHERE instance_id = $1 AND grant_id = $3::text AND expires_at > $4)
             OR EXISTS (SELECT 1 FROM ${t.revokedSubjects}
                         WHERE instance_id = $1 AND user_id = $5::text AND expires_at > $4
                           AND $6::bigint <= revoked_at) AS revoked`,
        [
          instanceId,
          jti,
          grantId ?? null,
          wholeInstant(now),
          issuedAt === undefined ? null : (userId ?? null),
          issuedAt === undefined ? null : wholeInstant(issuedAt),
        ],
      );
      return rows[0]!.revoked;
    },

    async listUserRefreshTokens(userId, now) {
      // The partial index refresh_tokens_user (migration 008) finds the user's tokens; rotated ones
      // are filtered here (no index names rotated_at, so that a rotation is a HOT update).
      const { rows } = await pool.query<RefreshRow>(
        `SELECT r.* FROM ${t.refreshTokens} r
         WHERE r.instance_id = $1 AND r.subject_kind = 'user' AND r.subject_id = $3
           AND r.rotated_at IS NULL AND r.expires_at > $2 AND ${refreshNotRevoked}`,
        [instanceId, wholeInstant(now), userId],
      );
      return rows.map(toRefresh);
    },

    async subjectRevokedAt(userId, now) {
      const { rows } = await pool.query<{ revoked_at: string }>(
        `SELECT revoked_at FROM ${t.revokedSubjects} WHERE instance_id = $1 AND user_id = $2 AND expires_at > $3`,
        [instanceId, userId, wholeInstant(now)],
      );
      return rows[0] ? Number(rows[0].revoked_at) : null;
    },
  };
  return store;
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
    ...attributesFrom(row.attrs, CODE_ATTRIBUTES),
    authTime: Number(row.auth_time),
    expiresAt: Number(row.expires_at),
    ...(row.consumed_at === null ? {} : { consumedAt: Number(row.consumed_at) }),
  };
}

function toRefresh(row: RefreshRow): RefreshTokenRecord {
  const subject: Subject =
    row.subject_kind === 'client'
      ? { kind: 'client', clientId: row.subject_id }
      : { kind: 'user', userId: row.subject_id };
  return {
    tokenHash: row.token_hash,
    grantId: row.grant_id,
    clientId: row.client_id,
    subject,
    scope: row.scope,
    ...attributesFrom(row.attrs, REFRESH_ATTRIBUTES),
    issuedAt: Number(row.issued_at),
    expiresAt: Number(row.expires_at),
    ...(row.rotated_at === null ? {} : { rotatedAt: Number(row.rotated_at) }),
  };
}
