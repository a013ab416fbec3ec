import { randomUUID } from 'node:crypto';
import {
  type AuthorizationCodeRecord,
  type ExchangeCodeResult,
  type ExchangeRefreshTokenResult,
  exchangeCodeByLookup,
  exchangeRefreshTokenByLookup,
  type GrantRefusal,
  type GrantStore,
  offlineAccessGranted,
  type RedeemCodeResult,
  type RefreshTokenRecord,
  type RotateRefreshTokenResult,
  refreshTokenFromCode,
  wholeExpiry,
  wholeInstant,
} from '@gatehousejs/core/engine';
import { FoundMemo, type FoundRecord } from './found-memo.js';
import {
  defaultGrantScripts,
  findRecordScript,
  type GrantScripts,
  revokeScript,
  revokeSubjectScript,
} from './grant-scripts.js';
import { expireAt, type KeyLayout } from './keys.js';
import type { RevocationHub } from './revocation-channel.js';
import type { LuaScript, RedisClient } from './script.js';
import { sendTogether } from './send-together.js';

type Marker = 'used' | 'rot';

/**
 * {@link GrantStore} on Redis, for one instance (see keys.ts). A code or refresh token is found
 * through its pointer (hash → grant id) and then read, with its grant's revocation marker, from its
 * grant's slot: one script on a single server, two round trips on a Cluster. Redeeming and rotating run one script that re-checks everything
 * and writes; it names every key it touches. The script needs the grant id (the pointer) and the
 * user's mark: the lookup Gatehouse makes just before, at the same `now`, learned both (see
 * found-memo.ts). On a single server the script also writes the next token's pointer and index
 * entry (keys of other slots, which a single server allows): the consume is one command, one round
 * trip, and a losing call writes nothing. On a Cluster every key of a script must be in one slot
 * (the grant's): the pointer and index entry are written first, acknowledged, then the script is
 * sent (two round trips). A consume without that lookup first reads the pointer (one more).
 *
 * A pointer is written before its record or with it, never after: a pointer whose record never
 * landed (a losing or failed call on a Cluster) leads to no record, which reads as absent, and
 * expires with the record it would have named.
 *
 * A user's mark (`revokeSubject`) lives in the user's slot, not the grant's, so a script cannot read
 * it: the store reads it just before (the pointer names the user) and hands its `at` to the script,
 * which compares it with the record's issue time in the same step as the write. A mark written
 * between that read and the script is as if written just after the script, which a mark's `at`
 * (the time of `revokeUser`) does not distinguish from a mark written while the script ran.
 */
export function redisGrantStore(
  client: RedisClient,
  keys: KeyLayout,
  hub: RevocationHub,
  scripts: GrantScripts = defaultGrantScripts,
): GrantStore {
  const memo = new FoundMemo();
  // A single server (standalone or Sentinel's primary) runs one connection's commands in the order
  // sent, so a write sent just before a script lands before it; a Cluster's nodes run theirs
  // apart, so there a write must be acknowledged before the script that relies on it is sent.
  const inOrder = !client.isCluster;

  // The one-step lookup reads keys it learns from the pointer: a single server only, and not one
  // that refuses undeclared keys (then two round trips from the first refusal on).
  let lookupInOneStep = inOrder;
  // The one-command consume names keys of several slots (the grant's, the next pointer's, the
  // user's index): a single server only, and not one that enforces slots (a sharding proxy), which
  // refuses it before running it; from that first refusal on, the writes go first.
  let consumeInOneStep = inOrder;
  // The length of the grant tag of the empty id: a record key of that id, past it, is the part a
  // lookup script appends to the tag of the grant it learns from the pointer.
  const emptyGrantTagLength = keys.revokedGrant('').length - ':revoked'.length;

  /**
   * What a lookup reads: the pointer's owner, the record's fields (`r`, `exp`, `grant`, marker,
   * `prev`), its grant's revocation marker and its user's mark. One round trip on a single server
   * (findRecordScript); two on a Cluster: the pointer, then the record with its grant's marker (one
   * slot, pipelined) and the user's mark, sent together.
   */
  const readRecord = async (pointer: string, recordKey: (grantId: string) => string, marker: Marker) => {
    if (lookupInOneStep) {
      try {
        // The record key's part after its grant's tag (`:rt:<hash>`): what the script appends.
        const suffix = recordKey('').slice(emptyGrantTagLength);
        const reply = (await findRecordScript.run(client, [pointer], [keys.base, suffix, marker])) as
          | (string | null)[]
          | null;
        if (reply === null) return null;
        const owner = parsePointer(reply[0]!)!;
        return { owner, fields: reply.slice(1, 6), revokedUntil: reply[6] ?? null, mark: reply[7] ?? null };
      } catch (error) {
        if (!(error instanceof Error) || !/undeclared|non-declared|not declared/i.test(error.message))
          throw error;
        lookupInOneStep = false;
      }
    }
    const owner = parsePointer(await client.get(pointer));
    if (owner === null) return null;
    const [replies, mark] = await sendTogether(client, () =>
      Promise.all([
        client
          .pipeline()
          .hmget(recordKey(owner.grantId), 'r', 'exp', 'grant', marker, 'prev')
          .get(keys.revokedGrant(owner.grantId))
          .exec(),
        owner.userId === undefined ? null : client.get(keys.revokedSubject(owner.userId)),
      ]),
    );
    throwOnFailedStep(replies);
    const fields = replies![0]![1] as (string | null)[];
    return { owner, fields, revokedUntil: replies![1]![1] as string | null, mark };
  };

  /**
   * A stored record with its marker, if it exists, is unexpired, its grant is not revoked and no
   * mark of its user covers its issue time (`issuedAt` of it).
   */
  const findLive = async <T>(
    pointer: string,
    recordKey: (grantId: string) => string,
    marker: Marker,
    issuedAt: (record: T) => number,
    now: number,
  ) => {
    const read = await readRecord(pointer, recordKey, marker);
    if (read === null) return null;
    const { owner, fields, revokedUntil, mark } = read;
    const { grantId, userId } = owner;
    const [json, exp, storedGrant, seen, previousHash] = fields;
    if (json == null || storedGrant !== grantId || Number(exp) <= wholeInstant(now)) return null;
    if (markerInForce(revokedUntil, now)) return null;
    const record = JSON.parse(json) as T & object;
    if (markCovers(mark, issuedAt(record), now)) return null;
    // Still consumable: what the consume of the same record at the same `now` needs.
    if (seen == null) {
      memo.remember(pointer, now, {
        grantId,
        userId,
        markAt: markAt(mark, now),
        previousHash: previousHash ?? undefined,
        json,
        record,
      });
    }
    return { record, expiresAt: Number(exp), seen: seen == null ? undefined : Number(seen) };
  };

  /** The `at` of `userId`'s mark in force at `now`, as a script argument ('' for none). */
  const readMarkAt = async (userId: string | undefined, now: number): Promise<string> =>
    userId === undefined ? '' : markAt(await client.get(keys.revokedSubject(userId)), now);

  /**
   * Adds a user's refresh token to the user's index (`listUserRefreshTokens`), before its record is
   * written, like a pointer: an entry whose record never landed names nothing and is skipped.
   * `rotatedHash`, when given, is a token of the same grant known to be rotated: its entry goes.
   */
  const indexUserToken = async (
    userId: string | undefined,
    grantId: string,
    tokenHash: string,
    expiresAt: number,
    now: number,
    rotatedHash?: string,
  ) => {
    if (userId === undefined) return;
    await scripts.indexUserToken.run(
      client,
      [keys.userRefreshTokens(userId)],
      [
        pointerValue(grantId, tokenHash),
        expireAt(expiresAt),
        String(wholeInstant(now)),
        rotatedHash === undefined ? '' : pointerValue(grantId, rotatedHash),
      ],
    );
  };

  const saveHash = async (
    pointer: string,
    key: string,
    json: string,
    expiresAt: number,
    grantId: string,
    userId: string | undefined,
    marker?: [Marker, number],
    extra: string[] = [],
  ) => {
    const fields = [
      'r',
      json,
      'exp',
      expireAt(expiresAt),
      'grant',
      grantId,
      ...(marker ? [marker[0], String(wholeInstant(marker[1]))] : []),
      ...extra,
    ];
    const writePointer = () =>
      client.set(pointer, pointerValue(grantId, userId), 'PXAT', expireAt(expiresAt));
    // MULTI/EXEC: all three or nothing.
    const writeRecord = () =>
      client
        .multi()
        .del(key)
        .hset(key, ...fields)
        .pexpireat(key, expireAt(expiresAt))
        .exec()
        .then(throwOnFailedStep);
    await inSequence([writePointer, writeRecord]);
  };

  /**
   * Issues `steps` so that each lands before the next: together, in one round trip, on a single
   * server (one connection runs them in the order sent); one after the other on a Cluster.
   * Resolves to their results.
   */
  const inSequence = async (steps: (() => unknown)[]): Promise<unknown[]> => {
    if (inOrder) return sendTogether(client, () => Promise.all(steps.map((step) => step())));
    const results: unknown[] = [];
    for (const step of steps) results.push(await step());
    return results;
  };

  /**
   * Runs an atomic consume of the record behind `pointer`. `nonce` identifies this call, so that a
   * re-sent script (reply lost, see grant-scripts.ts) answers like the run that won instead of
   * reporting a replay of itself. `next`, when given, is the record the script stores: its pointer
   * and index entry are written first (see above).
   */
  const consume = async (
    pointer: string,
    recordKey: (grantId: string) => string,
    script: LuaScript,
    next: NextRecord | undefined,
    nonce: string,
    extraArgs: string[],
    now: number,
  ) => {
    // The consumed token's predecessor's index entry goes with the next token's: the consumed
    // token exists, so the rotation that stored it rotated that one.
    const rotatedOf = (owner?: FoundRecord) =>
      next && owner?.userId === next.userId ? owner?.previousHash : undefined;
    // `withNext`: the script writes the next record's pointer and index entry itself (a single
    // server, see grant-scripts.ts storeRefreshToken); otherwise they were written before.
    const run = (owner: FoundRecord, withNext: boolean) => {
      const scriptKeys = [recordKey(owner.grantId), keys.revokedGrant(owner.grantId)];
      const args = [String(wholeInstant(now)), owner.grantId, nonce, owner.markAt, ...extraArgs];
      if (next) {
        scriptKeys.push(next.key);
        if (withNext) {
          scriptKeys.push(next.pointer);
          args.push(pointerValue(next.grantId, next.userId));
          if (next.tokenHash !== undefined && next.userId !== undefined) {
            const rotatedHash = rotatedOf(owner);
            scriptKeys.push(keys.userRefreshTokens(next.userId));
            args.push(
              pointerValue(next.grantId, next.tokenHash),
              rotatedHash === undefined ? '' : pointerValue(next.grantId, rotatedHash),
            );
          }
        }
      }
      return script.run(client, scriptKeys, args) as Promise<ConsumeReply>;
    };
    // The next record's pointer and its user's index entry, written before the script.
    const writeNext = (owner?: FoundRecord) => {
      if (!next) return Promise.resolve();
      return Promise.all([
        client.set(next.pointer, pointerValue(next.grantId, next.userId), 'PXAT', expireAt(next.expiresAt)),
        next.tokenHash &&
          indexUserToken(next.userId, next.grantId, next.tokenHash, next.expiresAt, now, rotatedOf(owner)),
      ]);
    };
    const finish = async (owner: FoundRecord) => {
      if (consumeInOneStep) {
        try {
          return await run(owner, true);
        } catch (error) {
          // Refused before it ran (nothing written): a server that enforces slots.
          if (!(error instanceof Error) || !/CROSSSLOT/i.test(error.message)) throw error;
          consumeInOneStep = false;
        }
      }
      // The writes run before the script (sent together on one server). A failed write fails the
      // call (503); under noeviction the only such failure, OOM, refuses the script's writes too.
      const [, reply] = await inSequence([() => writeNext(owner), () => run(owner, false)]);
      return reply as Awaited<ReturnType<typeof run>>;
    };

    const found = memo.take(pointer, now);
    if (found) {
      // The next record must live in the same grant (and so the same slot); the contract says it does.
      if (next && next.grantId !== found.grantId) return null;
      const reply = await finish(found);
      // The consumed record as the lookup parsed it, when the script read the same JSON.
      if (reply[1] !== undefined && reply[1] === found.json) reply[1] = found.record;
      return reply;
    }

    // Not looked up by this store at this `now`: read the pointer, with the mark of the user the
    // next record names (its grant's, so almost always the right one), while the writes go out
    // when the script does not make them.
    const writesFirst = !consumeInOneStep;
    const [current, mark] = await sendTogether(client, () =>
      Promise.all([
        client.get(pointer),
        next?.userId === undefined ? null : client.get(keys.revokedSubject(next.userId)),
        writesFirst ? writeNext() : undefined,
      ]),
    );
    const owner = parsePointer(current);
    if (owner === null) return null;
    if (next && next.grantId !== owner.grantId) return null;
    const markArgument =
      next && owner.userId === next.userId ? markAt(mark, now) : await readMarkAt(owner.userId, now);
    const read = { ...owner, markAt: markArgument };
    return writesFirst ? run(read, false) : finish(read);
  };

  /**
   * Runs a one-step exchange script (grant-scripts.ts) where the server allows it: a single server
   * that lets scripts reach keys they learn from a pointer. Resolves to its reply, or `undefined`
   * when the exchange must take the two-call path: on a Cluster, on a server that refuses the
   * script (from then on), or when the script answered `rebuild` (nothing written).
   */
  const inOneStep = async (script: LuaScript, scriptKeys: string[], args: string[]) => {
    if (!lookupInOneStep || !consumeInOneStep) return undefined;
    try {
      const reply = (await script.run(client, scriptKeys, args)) as (string | null)[];
      return reply[0] === 'rebuild' ? undefined : reply;
    } catch (error) {
      if (!(error instanceof Error) || !/undeclared|non-declared|not declared|CROSSSLOT/i.test(error.message))
        throw error;
      lookupInOneStep = false;
      return undefined;
    }
  };

  const store: GrantStore = {
    async saveCode(record) {
      const { consumedAt, ...rest } = record;
      const marker: [Marker, number] | undefined =
        consumedAt === undefined ? undefined : ['used', consumedAt];
      await saveHash(
        keys.codePointer(record.codeHash),
        keys.code(record.grantId, record.codeHash),
        codeJson(rest),
        record.expiresAt,
        record.grantId,
        record.userId,
        marker,
        // What the one-step exchange builds the code's refresh token from (exchangeCodeSource).
        consumedAt === undefined ? refreshTemplate(record) : [],
      );
    },

    async findCode(codeHash, now) {
      const found = await findLive<AuthorizationCodeRecord>(
        keys.codePointer(codeHash),
        (grantId) => keys.code(grantId, codeHash),
        'used',
        (code) => code.authTime,
        now,
      );
      if (!found) return null;
      // A consumed code's `exp` field was extended by the redeem script; the JSON keeps the original.
      return found.seen === undefined
        ? found.record
        : { ...found.record, expiresAt: found.expiresAt, consumedAt: found.seen };
    },

    async redeemCode(codeHash, refreshToken, now, keepUntil): Promise<RedeemCodeResult> {
      const reply = await consume(
        keys.codePointer(codeHash),
        (grantId) => keys.code(grantId, codeHash),
        scripts.redeemCode,
        refreshToken
          ? {
              pointer: keys.refreshTokenPointer(refreshToken.tokenHash),
              key: keys.refreshToken(refreshToken.grantId, refreshToken.tokenHash),
              grantId: refreshToken.grantId,
              userId: userOf(refreshToken),
              tokenHash: refreshToken.tokenHash,
              expiresAt: refreshToken.expiresAt,
            }
          : undefined,
        // The new refresh token's hash is unique to this call; without one, a fresh random id.
        refreshToken?.tokenHash ?? randomUUID(),
        [
          expireAt(keepUntil),
          ...(refreshToken
            ? [refreshJson(refreshToken), expireAt(refreshToken.expiresAt), refreshToken.grantId]
            : []),
        ],
        now,
      );
      if (!reply || reply[0] === 'invalid' || reply[0] === 'retry') return { status: 'invalid' };
      const code = consumedRecord<AuthorizationCodeRecord>(reply);
      if (reply[0] === 'replayed') {
        const replayed = { ...code, expiresAt: Number(reply[3]), consumedAt: Number(reply[2]) };
        return { status: 'replayed', code: replayed };
      }
      const consumedAt = wholeInstant(now);
      return { status: 'redeemed', code: { ...code, expiresAt: Number(reply[2]), consumedAt } };
    },

    async exchangeCode(codeHash, exchange, now): Promise<ExchangeCodeResult> {
      const mint = exchange.refreshToken;
      const reply = await inOneStep(
        scripts.exchangeCode,
        mint
          ? [keys.codePointer(codeHash), keys.refreshTokenPointer(mint.tokenHash)]
          : [keys.codePointer(codeHash)],
        [
          String(wholeInstant(now)),
          keys.base,
          keys.code('', codeHash).slice(emptyGrantTagLength),
          mint?.tokenHash ?? randomUUID(),
          expireAt(exchange.keepUntil),
          JSON.stringify(exchange.clientId),
          exchange.redirectUri === undefined ? '' : JSON.stringify(exchange.redirectUri),
          exchange.redirectUriFitsDefault ? '1' : '0',
          exchange.verifierChallenge === undefined ? '' : JSON.stringify(exchange.verifierChallenge),
          exchange.dpopJkt ?? '',
          mint?.tokenHash ?? '',
          mint ? expireAt(mint.expiresAt) : '0',
          mint?.dpopJkt === undefined ? '' : JSON.stringify(mint.dpopJkt),
        ],
      );
      if (reply === undefined) return exchangeCodeByLookup(store, codeHash, exchange, now);
      switch (reply[0]) {
        case 'redeemed':
          return {
            status: 'redeemed',
            code: { ...JSON.parse(reply[1]!), expiresAt: Number(reply[2]), consumedAt: wholeInstant(now) },
            refreshTokenStored: reply[3] === '1',
          };
        case 'replayed':
          return {
            status: 'replayed',
            code: { ...JSON.parse(reply[1]!), expiresAt: Number(reply[3]), consumedAt: Number(reply[2]) },
          };
        case 'refused':
          return { status: 'refused', reason: reply[1] as GrantRefusal };
        default:
          return { status: 'invalid' };
      }
    },

    async exchangeRefreshToken(tokenHash, exchange, now): Promise<ExchangeRefreshTokenResult> {
      const { next } = exchange;
      const reply = await inOneStep(
        scripts.exchangeRefreshToken,
        [keys.refreshTokenPointer(tokenHash), keys.refreshTokenPointer(next.tokenHash)],
        [
          String(wholeInstant(now)),
          keys.base,
          keys.refreshToken('', tokenHash).slice(emptyGrantTagLength),
          exchange.clientId,
          exchange.dpopJkt ?? '',
          next.tokenHash,
          expireAt(next.expiresAt),
          next.dpopJkt ?? '',
          JSON.stringify(exchange.clientId),
        ],
      );
      if (reply === undefined) return exchangeRefreshTokenByLookup(store, tokenHash, exchange, now);
      switch (reply[0]) {
        case 'rotated':
          return { status: 'rotated', previous: JSON.parse(reply[1]!) };
        case 'reused':
          return { status: 'reused', previous: { ...JSON.parse(reply[1]!), rotatedAt: Number(reply[2]) } };
        case 'refused':
          return { status: 'refused', reason: reply[1] as GrantRefusal };
        default:
          return { status: 'invalid' };
      }
    },

    async saveRefreshToken(record) {
      const marker: [Marker, number] | undefined =
        record.rotatedAt === undefined ? undefined : ['rot', record.rotatedAt];
      // The index entry, like the pointer, lands before the record.
      await inSequence([
        () =>
          record.rotatedAt === undefined &&
          indexUserToken(userOf(record), record.grantId, record.tokenHash, record.expiresAt, record.issuedAt),
        () =>
          saveHash(
            keys.refreshTokenPointer(record.tokenHash),
            keys.refreshToken(record.grantId, record.tokenHash),
            refreshJson(record),
            record.expiresAt,
            record.grantId,
            userOf(record),
            marker,
          ),
      ]);
    },

    async findRefreshToken(tokenHash, now) {
      const found = await findLive<RefreshTokenRecord>(
        keys.refreshTokenPointer(tokenHash),
        (grantId) => keys.refreshToken(grantId, tokenHash),
        'rot',
        (token) => token.issuedAt,
        now,
      );
      if (!found) return null;
      return found.seen === undefined ? found.record : { ...found.record, rotatedAt: found.seen };
    },

    async rotateRefreshToken(tokenHash, next, now): Promise<RotateRefreshTokenResult> {
      const reply = await consume(
        keys.refreshTokenPointer(tokenHash),
        (grantId) => keys.refreshToken(grantId, tokenHash),
        scripts.rotateRefreshToken,
        {
          pointer: keys.refreshTokenPointer(next.tokenHash),
          key: keys.refreshToken(next.grantId, next.tokenHash),
          grantId: next.grantId,
          userId: userOf(next),
          tokenHash: next.tokenHash,
          expiresAt: next.expiresAt,
        },
        next.tokenHash,
        // The token's own hash becomes the next one's `prev`: the next rotation, knowing this token
        // rotated, drops its index entry in its own write (no command of its own after the script).
        [refreshJson(next), expireAt(next.expiresAt), next.grantId, tokenHash],
        now,
      );
      if (!reply || reply[0] === 'invalid' || reply[0] === 'retry') return { status: 'invalid' };
      const previous = consumedRecord<RefreshTokenRecord>(reply);
      if (reply[0] === 'reused')
        return { status: 'reused', previous: { ...previous, rotatedAt: Number(reply[2]) } };
      return { status: 'rotated', previous };
    },

    // Each revocation is published on the engine's channel by the script that writes it.
    async revokeGrant(grantId, expiresAt) {
      await revokeScript.run(
        client,
        [keys.revokedGrant(grantId)],
        [expireAt(expiresAt), hub.channel, 'g', keys.instanceTag + grantId],
      );
    },

    async revokeAccessToken(jti, expiresAt) {
      await revokeScript.run(
        client,
        [keys.revokedToken(jti)],
        [expireAt(expiresAt), hub.channel, 't', keys.instanceTag + jti],
      );
    },

    async revokeSubject(userId, at, expiresAt) {
      // A consume after this call must not use a mark read before it.
      memo.forgetUser(userId);
      await revokeSubjectScript.run(
        client,
        [keys.revokedSubject(userId)],
        // The mark's time rounds up: a fraction errs towards revoking.
        [String(wholeExpiry(at)), expireAt(expiresAt), hub.channel, keys.instanceTag + userId],
      );
    },

    // Shared by processes: each bearer check would be a round trip, so the mirror is the default
    // (an instance's `pushedRevocations: false` still asks per request).
    pushedRevocationsByDefault: true,

    watchRevocations(listener) {
      return hub.watch(keys, listener);
    },

    async isRevoked(jti, grantId, now, userId, issuedAt) {
      // On every bearer request. The token's, the grant's and the user's markers live in different
      // slots, so up to three GETs sent together: one round trip of latency, also on a Cluster.
      const checkUser = userId !== undefined && issuedAt !== undefined;
      const [tokenMarker, grantMarker, userMark] = await sendTogether(client, () =>
        Promise.all([
          client.get(keys.revokedToken(jti)),
          grantId === undefined ? null : client.get(keys.revokedGrant(grantId)),
          checkUser ? client.get(keys.revokedSubject(userId)) : null,
        ]),
      );
      if (markerInForce(tokenMarker, now) || markerInForce(grantMarker, now)) return true;
      return checkUser && markCovers(userMark, issuedAt, now);
    },

    async listUserRefreshTokens(userId, now) {
      const index = keys.userRefreshTokens(userId);
      const at = wholeInstant(now);
      const [members, mark] = await Promise.all([
        client.zrangebyscore(index, `(${at}`, '+inf'),
        client.get(keys.revokedSubject(userId)),
      ]);
      // Each token is read with its grant's marker from the grant's slot: one pipeline per grant,
      // all sent together. Rotated tokens leave the index here (a rotation drops only the entry of
      // its token's predecessor): a rotated token never becomes usable again.
      const rotated: string[] = [];
      const found = await Promise.all(
        members.map(async (member) => {
          const { grantId, userId: tokenHash } = parsePointer(member)!;
          if (tokenHash === undefined) return null;
          const replies = await client
            .pipeline()
            .hmget(keys.refreshToken(grantId, tokenHash), 'r', 'exp', 'grant', 'rot')
            .get(keys.revokedGrant(grantId))
            .exec();
          throwOnFailedStep(replies);
          const [json, exp, storedGrant, rotatedAt] = replies![0]![1] as (string | null)[];
          const revokedUntil = replies![1]![1] as string | null;
          if (json != null && rotatedAt != null) rotated.push(member);
          if (json == null || rotatedAt != null || storedGrant !== grantId || Number(exp) <= at) return null;
          if (markerInForce(revokedUntil, now)) return null;
          const record = JSON.parse(json) as RefreshTokenRecord;
          if (record.subject.kind !== 'user' || record.subject.userId !== userId) return null;
          return markCovers(mark, record.issuedAt, now) ? null : record;
        }),
      );
      if (rotated.length > 0) await client.zrem(index, ...rotated);
      return found.filter((record) => record !== null);
    },

    async subjectRevokedAt(userId, now) {
      const mark = parseMark(await client.get(keys.revokedSubject(userId)));
      return mark && mark.expiresAt > wholeInstant(now) ? mark.at : null;
    },
  };
  return store;
}

/**
 * A consume script's reply: its status, the consumed record's JSON (or the record itself, parsed
 * by the lookup just before, see consume) and the status's own fields.
 */
type ConsumeReply = [string, (string | object)?, string?, string?];

/** The consumed record of a reply, parsed unless the lookup had parsed it already. */
function consumedRecord<T>(reply: ConsumeReply): T {
  return (typeof reply[1] === 'string' ? JSON.parse(reply[1]) : reply[1]) as T;
}

/** The record a consume stores (a redemption's or rotation's refresh token): where it goes. */
interface NextRecord {
  pointer: string;
  key: string;
  grantId: string;
  userId?: string;
  /** A refresh token's hash: it goes into its user's index too. */
  tokenHash?: string;
  expiresAt: number;
}

/** The user whose mark covers a refresh token: its subject's, when the subject is a user. */
function userOf(record: RefreshTokenRecord): string | undefined {
  return record.subject.kind === 'user' ? record.subject.userId : undefined;
}

/** A pointer's value: the grant id (length-prefixed) followed by the user id, if any. */
export function pointerValue(grantId: string, userId: string | undefined): string {
  return `${grantId.length}:${grantId}${userId ?? ''}`;
}

function parsePointer(value: string | null): { grantId: string; userId?: string } | null {
  if (value === null) return null;
  const colon = value.indexOf(':');
  const length = Number(value.slice(0, colon));
  const grantId = value.slice(colon + 1, colon + 1 + length);
  const userId = value.slice(colon + 1 + length);
  return userId === '' ? { grantId } : { grantId, userId };
}

/** Whether a revocation marker (a string holding its expiry) is still in force at `now`. */
function markerInForce(until: string | null | undefined, now: number): boolean {
  return until != null && Number(until) > wholeInstant(now);
}

/** The `at` of a user's mark if in force at `now`, as the scripts take it ('' for none). */
function markAt(mark: string | null | undefined, now: number): string {
  const parsed = parseMark(mark);
  return parsed && parsed.expiresAt > wholeInstant(now) ? String(parsed.at) : '';
}

/** A user's mark, `"<at> <expiresAt>"` (see grant-scripts.ts), or `null`. */
function parseMark(mark: string | null | undefined): { at: number; expiresAt: number } | null {
  if (mark == null) return null;
  const space = mark.indexOf(' ');
  return { at: Number(mark.slice(0, space)), expiresAt: Number(mark.slice(space + 1)) };
}

/** Whether a user's mark in force at `now` covers something issued at `issuedAt` (at or before it). */
function markCovers(mark: string | null | undefined, issuedAt: number, now: number): boolean {
  const parsed = parseMark(mark);
  return parsed !== null && parsed.expiresAt > wholeInstant(now) && issuedAt <= parsed.at;
}

/**
 * A refresh token's JSON as the store writes it: its hash, issue time, expiry and client id first
 * (the one-step rotation reads these by position and writes its successor by replacing the first
 * three in place, exchangeRefreshTokenSource), without `rotatedAt` (a field of the hash).
 */
export function refreshJson(record: RefreshTokenRecord): string {
  const { tokenHash, issuedAt, expiresAt, clientId, rotatedAt: _, ...rest } = record;
  return JSON.stringify({ tokenHash, issuedAt, expiresAt, clientId, ...rest });
}

/**
 * A code's JSON as the store writes it: `codeHash`, `authTime`, `clientId`, `redirectUri` and, when
 * it has one, `codeChallenge` first (the one-step exchange reads these by position,
 * exchangeCodeSource), without `consumedAt` (a field of the hash).
 */
function codeJson(code: Omit<AuthorizationCodeRecord, 'consumedAt'>): string {
  const { codeHash, authTime, clientId, redirectUri, codeChallenge, ...rest } = code;
  return JSON.stringify({ codeHash, authTime, clientId, redirectUri, codeChallenge, ...rest });
}

/**
 * The fields `t` and `x` of an unconsumed code (exchangeCodeSource): the members of the refresh
 * token its exchange stores that come from the code (`refreshTokenFromCode`), as JSON members
 * (`clientId` first), or `-` when the code's scope stores none (`openid` without
 * `offline_access`, OpenID Connect Core §11); and the code's `ext` without its binding (JSON, or '').
 */
function refreshTemplate(code: AuthorizationCodeRecord): string[] {
  if (!offlineAccessGranted(code.scope)) return ['t', '-', 'x', ''];
  const {
    tokenHash: _h,
    issuedAt: _i,
    expiresAt: _e,
    grantedAt: _g,
    ext,
    clientId,
    ...grant
  } = refreshTokenFromCode(code, { tokenHash: '', expiresAt: 0 }, 0);
  // `clientId` first: the refresh token's fourth member, as refreshJson lays it out.
  const members = JSON.stringify({ clientId, ...grant }).slice(1, -1);
  return ['t', members, 'x', ext === undefined ? '' : JSON.stringify(ext)];
}

/** `exec()` reports per-command errors in its result instead of rejecting. */
export function throwOnFailedStep(results: [Error | null, unknown][] | null): void {
  if (results === null) throw new Error('redis transaction aborted');
  for (const [error] of results) if (error) throw error;
}
