import { wholeExpiry } from '@gatehousejs/core/engine';

/**
 * Key layout v2: one key space for every instance of every issuer, below `prefix` (default
 * `gatehouse`). Every key of an instance starts with `{prefix}:{<I>:`, where `<I>` is the instance
 * id preceded by its length (`7:default`), so that no key of one instance is a key of another
 * whatever the ids (`x` and `x:1`), and one SCAN pattern finds all of an instance's keys (`clear()`).
 *
 * Redis Cluster hashes only the part between the first `{` and the next `}`: the hash tag.
 *
 * - Grant-scoped keys, the ones a script touches together (a code, its grant's revocation marker,
 *   the refresh tokens of the grant), share the tag `{<I>:g:<grant id>}`: each grant lives in one
 *   slot, and grants spread over the cluster (never one slot per instance).
 *     `<prefix>:{<I>:g:<grant>}:code:<hash>`   hash: r (JSON), exp, grant, used, by
 *     `<prefix>:{<I>:g:<grant>}:rt:<hash>`     hash: r (JSON), exp, grant, rot, by, prev
 *     `<prefix>:{<I>:g:<grant>}:revoked`       string: expiry (ms)
 * - A code or refresh token is presented by hash alone, so a pointer (single key, its own tag)
 *   names its grant and its user (for the user's mark):
 *     `<prefix>:{<I>:code:<hash>}`  `<prefix>:{<I>:rt:<hash>}`   string: `<len>:<grant id><user id>`
 * - Everything else is single-key, tagged by its own name, so it spreads over the cluster:
 *     `<prefix>:{<I>:jti:<jti>}`                    string: expiry (revoked access token)
 *     `<prefix>:{<I>:user:<user id>}`               string: "<at> <expiresAt>" (a user's mark)
 *     `<prefix>:{<I>:grants:<user id>}`             sorted set: the user's refresh tokens (`listGrants`),
 *                                                    members `<len>:<grant id><token hash>`, scored by expiry
 *     `<prefix>:{<I>:kv:<key>}`                      hash: v (value), exp (key-value store: sessions,
 *                                                    consents, rate limits, replay ids, flow state)
 * - The client registry (RFC 7591 registrations) lives in one slot, the tag `{<I>:clients}`, so
 *   that one script makes room in a full registry (fair shares, issue 41) and writes the new
 *   registration atomically, on a Cluster too. Registrations are few (`maxClients`, 10,000 by
 *   default), so one slot holds them all:
 *     `<prefix>:{<I>:clients}`                       sorted set: the live registered client ids,
 *                                                    scored by expiry (`maxClients`)
 *     `<prefix>:{<I>:clients}:c:<client id>`         hash: r (JSON), exp, used (registered client)
 *     `<prefix>:{<I>:clients}:owners`                hash: client id → partition (who pays for it)
 *     `<prefix>:{<I>:clients}:weights`               sorted set: partition scored by its live registrations
 *     `<prefix>:{<I>:clients}:p:<partition>`         sorted set: the partition's client ids, scored by
 *                                                    registeredAt (oldest first)
 *     `<prefix>:{<I>:clients}:u:<partition>`         sorted set: those of them never used
 *   Registrations written before (`<prefix>:{<I>:client:<client id>}`, hash: r, exp) are still
 *   read, touched and deleted there ({@link KeyLayout.legacyRegisteredClient}); they have no
 *   partition and are never evicted, and they lapse as they did.
 *
 * Every record key carries its record's expiry (`PEXPIREAT`), so Redis deletes it without a
 * sweeper; the registry's indexes drop lapsed registrations on the next save.
 * Round 1's keys (`{prefix}:…` and `prefix:…`) are not read: `migrateRedisKeys` moves them into
 * this layout once, at upgrade. Neither are contract v2's own session, consent, rate-limit and
 * replay keys (`{<I>:session:…}`, `consent:`, `rate:`, `once:`): `migrateRedisToKv` moves them
 * into the key-value store ({@link KeyLayout.v2State} names them).
 */
export interface KeyLayout {
  code(grantId: string, codeHash: string): string;
  refreshToken(grantId: string, tokenHash: string): string;
  revokedGrant(grantId: string): string;
  codePointer(codeHash: string): string;
  refreshTokenPointer(tokenHash: string): string;
  revokedToken(jti: string): string;
  revokedSubject(userId: string): string;
  /** A user's revocation mark (`revokeSubject`), in the tagged slot so that scripts can read it. */
  revokedSubject(userId: string): string;
  /** The index of a user's refresh tokens (`listUserRefreshTokens`), in the user's own slot. */
  userRefreshTokens(userId: string): string;
  /** A registration, in the slot of {@link registeredClients}. */
  registeredClient(clientId: string): string;
  /** A registration as versions before fair shares wrote it (its own slot): read, never written. */
  legacyRegisteredClient(clientId: string): string;
  /** The index of the instance's registered clients, scored by expiry (counts `maxClients`). */
  readonly registeredClients: string;
  /** The registry's partition bookkeeping, in the slot of {@link registeredClients}. */
  readonly registryPartitions: {
    /** Hash: client id → partition. */
    readonly owners: string;
    /** Sorted set: partition → its live registrations. */
    readonly weights: string;
    /**
     * `<prefix>:{<I>:clients}:`, which a script completes with `c:<client id>`, `p:<partition>`
     * and `u:<partition>` (keys it learns while running, all in the one slot).
     */
    readonly base: string;
  };
  /** An entry of the key-value store (`GatehouseStorage.kv`). */
  keyValue(key: string): string;
  /** The SCAN pattern of every key of the instance. */
  readonly pattern: string;
  /**
   * `<prefix>:{<I>:`, the start of every key of the instance: with {@link LUA_KEYS}, a script
   * builds the keys of a grant and a user it learns from a pointer (the single-server lookup).
   */
  readonly base: string;
  /** The instance's id. */
  readonly instanceId: string;
  /** `<len>:<instance id>`: names the instance in messages of the revocation channel. */
  readonly instanceTag: string;
  /**
   * Contract v2's keys of sessions, consents, rate-limit windows and replay ids, no longer written:
   * the SCAN pattern of each kind, and the part of a found key after its kind (`migrateRedisToKv`).
   */
  readonly v2State: {
    readonly sessions: string;
    readonly consents: string;
    readonly rateLimits: string;
    readonly replayIds: string;
    rest(key: string, kind: 'session' | 'consent' | 'rate' | 'once'): string;
  };
  /** SCAN patterns of the instance's revocations, and the id each key names (a snapshot's source). */
  readonly revocations: {
    readonly grants: string;
    readonly tokens: string;
    readonly subjects: string;
    idOf(key: string): string;
  };
}

/** Checks a key prefix: non-empty, without braces (the engine places the hash tags) or whitespace. */
export function checkPrefix(prefix: string): string {
  if (prefix === '' || /[{}\s]/.test(prefix)) {
    throw new TypeError('redis: `prefix` must be non-empty, without braces or whitespace.');
  }
  return prefix;
}

/** The keys of one instance (an id checked by `checkInstanceId`), below `prefix`. */
export function keyLayout(prefix: string, instanceId: string): KeyLayout {
  const base = `${checkPrefix(prefix)}:{${instanceId.length}:${instanceId}:`;
  // A grant id is inside the hash tag: a brace in it would end the tag early, so braces (and the
  // escape character itself) are percent-encoded, which keeps distinct ids distinct.
  // Most ids have nothing to encode: testing first skips the replace's slower path (about half
  // the instructions per key, several keys per token request).
  const grant = (grantId: string) =>
    `${base}g:${NEEDS_ENCODING.test(grantId) ? grantId.replace(/[{}%]/g, percentEncode) : grantId}}`;
  return {
    code: (grantId, codeHash) => `${grant(grantId)}:code:${codeHash}`,
    refreshToken: (grantId, tokenHash) => `${grant(grantId)}:rt:${tokenHash}`,
    revokedGrant: (grantId) => `${grant(grantId)}:revoked`,
    codePointer: (codeHash) => `${base}code:${codeHash}}`,
    refreshTokenPointer: (tokenHash) => `${base}rt:${tokenHash}}`,
    revokedToken: (jti) => `${base}jti:${jti}}`,
    revokedSubject: (userId) => `${base}user:${userId}}`,
    userRefreshTokens: (userId) => `${base}grants:${userId}}`,
    registeredClient: (clientId) => `${base}clients}:c:${clientId}`,
    legacyRegisteredClient: (clientId) => `${base}client:${clientId}}`,
    registeredClients: `${base}clients}`,
    registryPartitions: {
      owners: `${base}clients}:owners`,
      weights: `${base}clients}:weights`,
      base: `${base}clients}:`,
    },
    keyValue: (key) => `${base}kv:${key}}`,
    pattern: `${globEscape(base)}*`,
    base,
    v2State: {
      sessions: `${globEscape(base)}session:*`,
      consents: `${globEscape(base)}consent:*`,
      rateLimits: `${globEscape(base)}rate:*`,
      replayIds: `${globEscape(base)}once:*`,
      rest: (key, kind) => key.slice(base.length + kind.length + 1, -1),
    },
    instanceId,
    instanceTag: `${instanceId.length}:${instanceId}`,
    revocations: {
      grants: `${globEscape(base)}g:*}:revoked`,
      tokens: `${globEscape(base)}jti:*`,
      subjects: `${globEscape(base)}user:*`,
      idOf(key) {
        const rest = key.slice(base.length);
        if (rest.startsWith('g:')) return decodeURIComponent(rest.slice(2, -'}:revoked'.length));
        return rest.slice(rest.indexOf(':') + 1, -1);
      },
    },
  };
}

/**
 * The layout above in Lua, for a script that learns a grant or user id from a pointer: `grantTag`,
 * `userMark` and `userIndex` build what `grant(…)`, {@link KeyLayout.revokedSubject} and
 * {@link KeyLayout.userRefreshTokens} build, from
 * {@link KeyLayout.base} (braces and `%` of a grant id percent-encoded, upper-case hex, as
 * `percentEncode`). `redis-engine.test.ts` checks the two agree.
 */
export const LUA_KEYS = `
local function grantTag(base, grantId)
  -- Most ids have nothing to encode: finding that is cheaper than a gsub (no new string), and three
  -- plain searches cost half of one search for a character class.
  if string.find(grantId, '{', 1, true) or string.find(grantId, '}', 1, true) or string.find(grantId, '%', 1, true) then
    grantId = string.gsub(grantId, '[{}%%]', function(c) return string.format('%%%02X', string.byte(c)) end)
  end
  return base .. 'g:' .. grantId .. '}'
end
local function userMark(base, userId) return base .. 'user:' .. userId .. '}' end
local function userIndex(base, userId) return base .. 'grants:' .. userId .. '}' end
`;

const NEEDS_ENCODING = /[{}%]/;

function percentEncode(character: string): string {
  return `%${character.charCodeAt(0).toString(16).toUpperCase()}`;
}

/** Escapes the glob characters of SCAN MATCH (`*`, `?`, `[`, `]`, `\`): issuers may hold `[::1]`. */
export function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, (character) => `\\${character}`);
}

/**
 * An expiry as whole milliseconds, rounded up (`wholeExpiry`), as the string `PXAT`/`PEXPIREAT`
 * take. Redis rejects `PXAT 0`; an expiry at or before 1 ms still means "already gone".
 */
export function expireAt(epochMs: number): string {
  return String(Math.max(1, wholeExpiry(epochMs)));
}
