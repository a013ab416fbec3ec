import { randomUUID } from 'node:crypto';
import type {
  AuthorizationCodeRecord,
  GrantStore,
  RedeemCodeResult,
  RefreshTokenRecord,
  RotateRefreshTokenResult,
} from '@gatehouse/core';
import { redeemCodeScript, revokeScript, rotateRefreshTokenScript } from './grant-scripts.js';
import { expireAt, instant, type KeyLayout } from './keys.js';
import type { LuaScript, RedisClient } from './script.js';

type Marker = 'used' | 'rot';

/**
 * {@link GrantStore} on Redis. Redeeming and rotating take two round trips: one read to learn the
 * record's grant id, then one script that re-checks everything and writes. The script names every
 * key it touches (the grant's revocation marker included), as Redis Cluster requires.
 */
export function redisGrantStore(client: RedisClient, keys: KeyLayout): GrantStore {
  /** A stored record with its marker, if it exists, is unexpired and its grant is not revoked. */
  const findLive = async <T extends { grantId: string }>(key: string, marker: Marker, now: number) => {
    const [json, exp, , seen] = await client.hmget(key, 'r', 'exp', 'grant', marker);
    if (json == null || Number(exp) <= instant(now)) return null;
    const record = JSON.parse(json) as T;
    if (await grantRevoked(record.grantId, now)) return null;
    return { record, expiresAt: Number(exp), seen: seen == null ? undefined : Number(seen) };
  };

  const grantRevoked = async (grantId: string, now: number) => {
    const until = await client.get(keys.revokedGrant(grantId));
    return until !== null && Number(until) > instant(now);
  };

  const saveHash = async (
    key: string,
    json: string,
    expiresAt: number,
    grantId: string,
    marker?: [Marker, number],
  ) => {
    const fields = [
      'r',
      json,
      'exp',
      expireAt(expiresAt),
      'grant',
      grantId,
      ...(marker ? [marker[0], String(instant(marker[1]))] : []),
    ];
    // MULTI/EXEC: all three or nothing.
    await client
      .multi()
      .del(key)
      .hset(key, ...fields)
      .pexpireat(key, expireAt(expiresAt))
      .exec()
      .then(throwOnFailedStep);
  };

  /**
   * Runs an atomic consume. The grant id is read first because the script must be told every key;
   * records never change grant, so `retry` only happens if the record was replaced in between.
   * `nonce` identifies this call, so that a re-sent script (reply lost, see grant-scripts.ts)
   * answers like the run that won instead of reporting a replay of itself.
   */
  const consume = async (
    key: string,
    script: LuaScript,
    extraKeys: string[],
    nonce: string,
    extraArgs: string[],
    now: number,
  ) => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const grantId = await client.hget(key, 'grant');
      if (grantId === null) return null;
      const reply = (await script.run(
        client,
        [key, keys.revokedGrant(grantId), ...extraKeys],
        [String(instant(now)), grantId, nonce, ...extraArgs],
      )) as [string, string?, string?, string?];
      if (reply[0] !== 'retry') return reply;
    }
    return null;
  };

  return {
    async saveCode(record) {
      const { consumedAt, ...rest } = record;
      const marker: [Marker, number] | undefined =
        consumedAt === undefined ? undefined : ['used', consumedAt];
      await saveHash(
        keys.code(record.codeHash),
        JSON.stringify(rest),
        record.expiresAt,
        record.grantId,
        marker,
      );
    },

    async findCode(codeHash, now) {
      const found = await findLive<AuthorizationCodeRecord>(keys.code(codeHash), 'used', now);
      if (!found) return null;
      // A consumed code's `exp` field was extended by the redeem script; the JSON keeps the original.
      return found.seen === undefined
        ? found.record
        : { ...found.record, expiresAt: found.expiresAt, consumedAt: found.seen };
    },

    async redeemCode(codeHash, refreshToken, now, keepUntil): Promise<RedeemCodeResult> {
      const reply = await consume(
        keys.code(codeHash),
        redeemCodeScript,
        refreshToken ? [keys.refreshToken(refreshToken.tokenHash)] : [],
        // The new refresh token's hash is unique to this call; without one, a fresh random id.
        refreshToken?.tokenHash ?? randomUUID(),
        [
          expireAt(keepUntil),
          ...(refreshToken
            ? [
                JSON.stringify(withoutRotation(refreshToken)),
                expireAt(refreshToken.expiresAt),
                refreshToken.grantId,
              ]
            : []),
        ],
        now,
      );
      if (!reply || reply[0] === 'invalid') return { status: 'invalid' };
      const code = JSON.parse(reply[1]!) as AuthorizationCodeRecord;
      if (reply[0] === 'replayed') {
        const replayed = { ...code, expiresAt: Number(reply[3]), consumedAt: Number(reply[2]) };
        return { status: 'replayed', code: replayed };
      }
      const consumedAt = instant(now);
      return { status: 'redeemed', code: { ...code, expiresAt: Number(reply[2]), consumedAt } };
    },

    async saveRefreshToken(record) {
      const marker: [Marker, number] | undefined =
        record.rotatedAt === undefined ? undefined : ['rot', record.rotatedAt];
      await saveHash(
        keys.refreshToken(record.tokenHash),
        JSON.stringify(withoutRotation(record)),
        record.expiresAt,
        record.grantId,
        marker,
      );
    },

    async findRefreshToken(tokenHash, now) {
      const found = await findLive<RefreshTokenRecord>(keys.refreshToken(tokenHash), 'rot', now);
      if (!found) return null;
      return found.seen === undefined ? found.record : { ...found.record, rotatedAt: found.seen };
    },

    async rotateRefreshToken(tokenHash, next, now): Promise<RotateRefreshTokenResult> {
      const reply = await consume(
        keys.refreshToken(tokenHash),
        rotateRefreshTokenScript,
        [keys.refreshToken(next.tokenHash)],
        next.tokenHash,
        [JSON.stringify(withoutRotation(next)), expireAt(next.expiresAt), next.grantId],
        now,
      );
      if (!reply || reply[0] === 'invalid') return { status: 'invalid' };
      const previous = JSON.parse(reply[1]!) as RefreshTokenRecord;
      if (reply[0] === 'reused')
        return { status: 'reused', previous: { ...previous, rotatedAt: Number(reply[2]) } };
      return { status: 'rotated', previous };
    },

    async revokeGrant(grantId, expiresAt) {
      await revokeScript.run(client, [keys.revokedGrant(grantId)], [expireAt(expiresAt)]);
    },

    async revokeAccessToken(jti, expiresAt) {
      await revokeScript.run(client, [keys.revokedToken(jti)], [expireAt(expiresAt)]);
    },

    async isRevoked(jti, grantId, now) {
      // One round trip on every bearer request: both markers share a slot, so one MGET.
      const markers =
        grantId === undefined
          ? [await client.get(keys.revokedToken(jti))]
          : await client.mget(keys.revokedToken(jti), keys.revokedGrant(grantId));
      return markers.some((until) => until !== null && Number(until) > instant(now));
    },
  };
}

function withoutRotation(record: RefreshTokenRecord): Omit<RefreshTokenRecord, 'rotatedAt'> {
  const { rotatedAt: _, ...rest } = record;
  return rest;
}

/** `exec()` reports per-command errors in its result instead of rejecting. */
export function throwOnFailedStep(results: [Error | null, unknown][] | null): void {
  if (results === null) throw new Error('redis transaction aborted');
  for (const [error] of results) if (error) throw error;
}
