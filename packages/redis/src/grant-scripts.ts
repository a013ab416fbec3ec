import { LUA_KEYS } from './keys.js';
import { LuaScript } from './script.js';

/**
 * The grant store's atomic steps. Every key a script names is in one grant's slot (keys.ts). Code and
 * refresh-token keys are hashes: `r` (the record as JSON,
 * without the store-managed marker), `exp` (expiresAt, ms), `grant` (grant id), the marker
 * `used` / `rot` (consumedAt / rotatedAt), `by` (the nonce of the call that set the marker) and, on a
 * refresh token stored by a rotation, `prev` (the hash of the token it replaced: that one is rotated
 * for as long as this one exists, so the store may drop it from its user's index).
 * Revocation markers are strings holding their expiry; a user's mark (`revokeSubject`) holds
 * `"<at> <expiresAt>"`: everything issued to the user at or before `at` is revoked until `expiresAt`.
 *
 * Every script first validates its arguments (times must be whole milliseconds), then re-checks
 * expiry against the caller's `now` (ARGV[1]), the grant revocation and the user's mark (ARGV[4],
 * its `at` as read just before by the store, since the mark lives in the user's slot, not the
 * grant's; compared with the record's own issue time, `ISSUED`: `authTime` of a code, `issuedAt`
 * of a refresh token),
 * and only writes once every check passed: Redis does not roll a script back when a command fails midway, so a write followed
 * by a failing command would leave half a step behind.
 *
 * Idempotent per call: ioredis re-sends a command whose reply was lost to a dropped connection, so
 * a script may run twice for one call. The caller's nonce (ARGV[3]) is stored in `by`; a repeat run
 * carrying the same nonce answers the winner's reply again, without writing, instead of
 * `replayed` / `reused` (which would revoke the grant the first run just issued).
 */

/** Rejects (before any write) an ARGV listed in INTS that is not a whole number. */
const VALIDATE = `
for _, i in ipairs(INTS) do
  local v = ARGV[i]
  if v ~= nil and not string.match(v, '^%-?%d+$') then
    return redis.error_reply('ERR gatehouse: argument ' .. i .. ' must be whole milliseconds')
  end
end
`;

const CHECK_RECORD = `
${VALIDATE}
local now = tonumber(ARGV[1])
local f = redis.call('HMGET', KEYS[1], 'r', 'exp', 'grant', MARKER, 'by')
if not f[1] or tonumber(f[2]) <= now then return {'invalid'} end
if f[3] ~= ARGV[2] then return {'invalid'} end
local revoked = redis.call('GET', KEYS[2])
if revoked and tonumber(revoked) > now then return {'invalid'} end
if ARGV[4] ~= '' and tonumber(cjson.decode(f[1])[ISSUED]) <= tonumber(ARGV[4]) then
  return {'invalid'}
end
if f[4] and f[5] == ARGV[3] then return REPEAT(f) end
if f[4] then return {SEEN, f[1], f[4], f[2]} end
`;

/**
 * Whether the server takes `PEXPIREAT … GT` / `NX` (Redis ≥ 7.0, which also gives scripts
 * `redis.REDIS_VERSION_NUM`; on 6.2 it is nil). Read by each run, so a failover to a server of
 * another version needs nothing from the store. {@link grantScripts} can force the 6.2 path (tests).
 */
const EXPIRE_GT_AUTO = 'local EXPIRE_GT = (redis.REDIS_VERSION_NUM or 0) >= 0x070000';
const EXPIRE_GT_OFF = 'local EXPIRE_GT = false';

/**
 * Adds a refresh token to its user's index (a sorted set scored by expiry), from Lua expressions:
 * `member` until `expiresAt`, dropping `rotated` (a member known to be rotated: the predecessor of
 * the token being rotated, or '') and the members expired at `now`, and keeping the key until its
 * latest member expires.
 *
 * A rotation that drops its predecessor's member leaves the set as large as it was, so it skips the
 * sweep of expired members: the next call that adds a member without replacing one (a redemption,
 * a grant's first rotation, a save) sweeps them, and reads skip them by score meanwhile. On Redis ≥ 7
 * the key's expiry only ever moves later (`GT`; a key just created has none, which `GT` counts as
 * infinite, hence `NX` then): one command instead of reading the latest score, and the key outlives
 * its latest member only when that member was dropped, until that member's own expiry.
 */
const indexUserToken = (index: string, member: string, expiresAt: string, now: string, rotated: string) => `
do
  redis.call('ZADD', ${index}, ${expiresAt}, ${member})
  local replaced = ${rotated} and ${rotated} ~= '' and redis.call('ZREM', ${index}, ${rotated}) == 1
  if not replaced then redis.call('ZREMRANGEBYSCORE', ${index}, '-inf', ${now}) end
  if EXPIRE_GT then
    if redis.call('PEXPIREAT', ${index}, ${expiresAt}, 'GT') == 0 then
      redis.call('PEXPIREAT', ${index}, ${expiresAt}, 'NX')
    end
  else
    local last = redis.call('ZRANGE', ${index}, -1, -1, 'WITHSCORES')
    if last[2] then redis.call('PEXPIREAT', ${index}, last[2]) end
  end
end
`;

/**
 * Stores the new refresh token of KEYS[3] from ARGV[at..at+2] (json, expiresAt, grant id), plus
 * `more` (more fields of the HSET: name and Lua value).
 *
 * On a single server the store also names the token's pointer (KEYS[4]) and, for a user's token,
 * the user's index (KEYS[5]), with ARGV[9] the pointer's value, ARGV[10] the index member and
 * ARGV[11] the rotated member to drop (or ''): the script writes them too, so the whole consume is
 * one command, and a losing or refused call writes no pointer nor index entry. Their keys are in
 * other slots than the grant's, which a single server allows; on a Cluster the store writes them
 * itself before sending the script with three keys (grant-store.ts).
 */
const storeRefreshToken = (at: number, more: [string, string][] = []) => `
if KEYS[4] then
  redis.call('SET', KEYS[4], ARGV[9], 'PXAT', ARGV[${at + 1}])
  if KEYS[5] then
${indexUserToken('KEYS[5]', 'ARGV[10]', `ARGV[${at + 1}]`, 'ARGV[1]', 'ARGV[11]')}
  end
end
local write = function()
  return redis.call('HSET', KEYS[3], 'r', ARGV[${at}], 'exp', ARGV[${at + 1}], 'grant', ARGV[${at + 2}]${more.map(([name, value]) => `, '${name}', ${value}`).join('')})
end
-- HSET counts the fields it adds: fewer than written means a record was there (every record has
-- r, exp, grant), whose other fields (a marker) must not survive, so it is replaced whole.
if write() < ${3 + more.length} then
  redis.call('DEL', KEYS[3])
  write()
end
redis.call('PEXPIREAT', KEYS[3], ARGV[${at + 1}])
`;

/**
 * KEYS: code, revoked-grant marker, [refresh token, [its pointer, [its user's index]]]. ARGV: now,
 * expected grant id, nonce, the user's mark (`at`, or ''), keepUntil, [refresh json, refresh
 * expiresAt, refresh grant id, [pointer value, index member, '']] (see storeRefreshToken). The
 * consumed code is kept until keepUntil (never shortened) so that a late replay is still recognised.
 * Replies `{'replayed', json, consumedAt, exp}` or `{'redeemed', json, exp}`.
 */
const redeemCodeSource = (expireGt: string) => `
${expireGt}
local MARKER, SEEN, ISSUED, INTS = 'used', 'replayed', 'authTime', {1, 5, 7}
local REPEAT = function(f) return {'redeemed', f[1], f[2]} end
${CHECK_RECORD}
local exp = f[2]
if tonumber(ARGV[5]) > tonumber(exp) then
  exp = ARGV[5]
  redis.call('HSET', KEYS[1], 'used', ARGV[1], 'by', ARGV[3], 'exp', exp)
  redis.call('PEXPIREAT', KEYS[1], exp)
else
  redis.call('HSET', KEYS[1], 'used', ARGV[1], 'by', ARGV[3])
end
-- A code's refresh template (exchangeCode) is needed only until the code is consumed.
redis.call('HDEL', KEYS[1], 't', 'x')
if #KEYS >= 3 then
${storeRefreshToken(6)}
end
return {'redeemed', f[1], exp}
`;

/**
 * KEYS: token, revoked-grant marker, next token, [its pointer, [its user's index]]. ARGV: now,
 * expected grant id, nonce, the user's mark (`at`, or ''), next json, expiresAt, grant id, the
 * token's own hash (the next token's `prev`), [pointer value, index member, the member of the
 * token's predecessor or ''] (see storeRefreshToken). Replies `{'reused', json, rotatedAt}` or `{'rotated', json}`.
 */
const rotateRefreshTokenSource = (expireGt: string) => `
${expireGt}
local MARKER, SEEN, ISSUED, INTS = 'rot', 'reused', 'issuedAt', {1, 6}
local REPEAT = function(f) return {'rotated', f[1]} end
${CHECK_RECORD}
redis.call('HSET', KEYS[1], 'rot', ARGV[1], 'by', ARGV[3])
${storeRefreshToken(5, [['prev', 'ARGV[8]']])}
return {'rotated', f[1]}
`;

/**
 * The start of a one-step exchange (single server only: like findRecordScript, it reads and writes
 * keys it learns from the pointer, which a Cluster refuses). KEYS[1]: the pointer. ARGV[1] now,
 * ARGV[2] the instance's key base, ARGV[3] the record key's part after its grant tag. Reads the
 * record with `FIELDS` (`r`, `exp`, `grant`, marker, `by`, more), its grant's revocation marker
 * and its user's mark, and answers `invalid` for a missing, expired or revoked record, as
 * CHECK_RECORD does; `rebuild` for a pointer whose grant id has bytes past ASCII (its length prefix
 * counts UTF-16 units, not bytes: the store then takes the two-call path, which parses it in
 * JavaScript). Leaves `p` (the pointer), `colon`, `length`, `grantId`, `userId`, `tag`, `key`, `f`,
 * and `markAt`: the `at` of the user's mark in force, or nil. The record's own issue time is the
 * caller's to compare with `markAt` (`issuedAt` of a refresh token, `authTime` of a code), from
 * the record's JSON, which the script reads as cheaply as its layout allows.
 */
const EXCHANGE_LOOKUP = `
${LUA_KEYS}
${VALIDATE}
-- Whether \`text\` is in \`s\` at byte \`i\`: a plain search, which creates no string (a substring
-- compared with it would).
local function holds(s, i, text) return string.find(s, text, i, true) == i end
local now = tonumber(ARGV[1])
local p = redis.call('GET', KEYS[1])
if not p then return {'invalid'} end
local colon = string.find(p, ':', 1, true)
local length = tonumber(string.sub(p, 1, colon - 1))
local grantId = string.sub(p, colon + 1, colon + length)
-- Of a grant id written with a non-ASCII character, the first length bytes hold one: checking
-- the grant id alone is enough (the user id is the rest of the pointer, whatever its bytes).
if string.find(grantId, '[\\128-\\255]') then return {'rebuild'} end
local userId = string.sub(p, colon + 1 + length)
local tag = grantTag(ARGV[2], grantId)
local key = tag .. ARGV[3]
local f = redis.call('HMGET', key, unpack(FIELDS))
if not f[1] or tonumber(f[2]) <= now or f[3] ~= grantId then return {'invalid'} end
local revoked = redis.call('GET', tag .. ':revoked')
if revoked and tonumber(revoked) > now then return {'invalid'} end
local markAt = nil
if userId ~= '' then
  local mark = redis.call('GET', userMark(ARGV[2], userId))
  if mark then
    local a, e = string.match(mark, '^(%-?%d+) (%-?%d+)$')
    if a and tonumber(e) > now then markAt = tonumber(a) end
  end
end
`;

/**
 * Writes the new refresh token `json` at `tag .. ':rt:' .. hash`, its pointer KEYS[2] (value:
 * the consumed record's pointer, same grant and user) and its user's index entry (dropping
 * `dropped`, a member known to be rotated, or ''), all until `exp`. `prev`, when not nil, is the
 * hash of the token it replaces (see storeRefreshToken).
 */
const writeExchanged = (hash: string, exp: string, json: string, prev: string, dropped: string) => `
do
  redis.call('SET', KEYS[2], p, 'PXAT', ${exp})
  if userId ~= '' then
    local index = userIndex(ARGV[2], userId)
    local member = string.sub(p, 1, colon + length) .. ${hash}
${indexUserToken('index', 'member', exp, 'ARGV[1]', dropped)}
  end
  local nextKey = tag .. ':rt:' .. ${hash}
  local fields = {'r', ${json}, 'exp', ${exp}, 'grant', grantId}
  if ${prev} then
    fields[7] = 'prev'
    fields[8] = ${prev}
  end
  if redis.call('HSET', nextKey, unpack(fields)) < #fields / 2 then
    redis.call('DEL', nextKey)
    redis.call('HSET', nextKey, unpack(fields))
  end
  redis.call('PEXPIREAT', nextKey, ${exp})
end
`;

/**
 * Lua: the stored record `r` (`f[1]`) and its first two members as the store lays them out: the
 * record's hash under `name`, which must be the presented one (`hash`, ARGV[3] after `keyPart`),
 * then the member `next`, a number. Leaves `hash` and `at`, the position of the quote that closes
 * the hash (the number starts 13 bytes later, as both names are 8 bytes long); answers `rebuild`
 * for a record of another layout.
 */
const recordHead = (
  keyPart: ':rt:' | ':code:',
  name: 'tokenHash' | 'codeHash',
  next: 'issuedAt' | 'authTime',
) => `
local r = f[1]
local hash = string.sub(ARGV[3], ${keyPart.length + 1})
local at = ${name.length + 6} + #hash
if not (holds(r, 1, '{"${name}":"') and holds(r, ${name.length + 6}, hash) and holds(r, at, '","${next}":')) then
  return {'rebuild'}
end
`;

/**
 * Lua: `bound`, the DPoP key the record `r` is bound to (`ext.dpopJkt`, a string), or nil. The
 * record is decoded only when it names a key at all (`"dpopJkt":` after `cut`, anywhere in it).
 */
const BOUND_KEY = `
local bound = nil
if string.find(r, '"dpopJkt":', cut, true) then
  local record = cjson.decode(r)
  if type(record.ext) == 'table' and type(record.ext.dpopJkt) == 'string' then bound = record.ext.dpopJkt end
end
`;

/**
 * The refresh grant's exchange in one step (GrantStore.exchangeRefreshToken). KEYS: the presented
 * token's pointer, the next token's pointer. ARGV: now, key base, `:rt:<hash>`, client id, the
 * request's DPoP key ('' none), the next token's hash (also the call's nonce), its expiry, the key
 * to bind it to ('' none), the client id as JSON. Checks as `refreshTokenRefusal` (core), then
 * rotates and stores the successor: the rotated record's JSON with the new hash, issue time and
 * expiry in place of the first three members. Replies `{'rotated', json}`, `{'reused', json,
 * rotatedAt}`, `{'refused', reason}`, `{'invalid'}`, or `{'rebuild'}` (nothing written) for a
 * record of another layout or a successor to bind anew: the store then takes the two-call path.
 *
 * The store writes refresh tokens as refreshJson lays them out: `tokenHash`, `issuedAt`,
 * `expiresAt` and `clientId` first. The script reads those members at their positions (the record
 * starts with the presented hash; each number ends at the next comma, since a number holds none)
 * and compares the client id as JSON (JSON strings are prefix-free, and the store writes both with
 * JSON.stringify), which costs Redis a fraction of decoding the record (cjson) or matching a
 * pattern over it; nothing nested in the record can stand in for a member it reads. The record
 * is decoded only when it names a DPoP key (`"dpopJkt":` anywhere in it), to read the binding as
 * the contract defines it. A record of an earlier layout (`clientId` not fourth) goes the two-call
 * path once, which writes its successor in this layout.
 */
const exchangeRefreshTokenSource = (expireGt: string) => `
${expireGt}
local FIELDS, INTS = {'r', 'exp', 'grant', 'rot', 'by', 'prev'}, {1, 7}
${EXCHANGE_LOOKUP}
${recordHead(':rt:', 'tokenHash', 'issuedAt')}
local expires = string.find(r, ',', at + 13, true)
if not expires or not holds(r, expires, ',"expiresAt":') then return {'rebuild'} end
local cut = string.find(r, ',', expires + 13, true)
if not cut or not holds(r, cut + 1, '"clientId":') then return {'rebuild'} end
if markAt and tonumber(string.sub(r, at + 13, expires - 1)) <= markAt then return {'invalid'} end
if f[4] and f[5] == ARGV[6] then return {'rotated', r} end
if not holds(r, cut + 12, ARGV[9]) then return {'refused', 'client'} end
${BOUND_KEY}
if bound and bound ~= ARGV[5] then return {'refused', 'dpop_key'} end
if f[4] then return {'reused', r, f[4]} end
if ARGV[8] ~= '' and ARGV[8] ~= bound then return {'rebuild'} end
redis.call('HSET', key, 'rot', ARGV[1], 'by', ARGV[6])
local json = '{"tokenHash":"' .. ARGV[6] .. '","issuedAt":' .. ARGV[1] .. ',"expiresAt":' .. ARGV[7] .. string.sub(r, cut)
local own = string.sub(p, 1, colon + length) .. hash
${writeExchanged('ARGV[6]', 'ARGV[7]', 'json', 'hash', 'own')}
return {'rotated', r}
`;

/**
 * The code grant's exchange in one step (GrantStore.exchangeCode). KEYS: the code's pointer, [the
 * refresh token's pointer]. ARGV: now, key base, `:code:<hash>`, nonce, keepUntil, the client id
 * as JSON, the request's redirect_uri as JSON ('' none), '1' when it fits a code without one, the
 * verifier's challenge as JSON ('' none), the request's DPoP key ('' none), the refresh token's
 * hash ('' none), its expiry, the key to bind it to as a JSON string ('' none). Checks as
 * `codeRefusal` (core), then consumes the code (as redeemCode) and stores the refresh token unless
 * the code's scope has `openid` without `offline_access`: `{"tokenHash","issuedAt","expiresAt",`
 * then the code's refresh template `t` (written by saveCode: client, grant, subject, scope,
 * resources and authentication, as JSON members; `-` for a code whose scope stores none),
 * `"grantedAt"` and the code's `ext` without `dpopJkt` (`x`, JSON or '') bound to the given key;
 * both go at consumption. Replies `{'redeemed', json, exp, stored}` (a repeated run: stored when
 * the refresh token's pointer exists), `{'replayed', json, consumedAt, exp}`, `{'refused',
 * reason}`, `{'invalid'}`, or `{'rebuild'}` (nothing written) for a code of another layout, or
 * unconsumed without a template (saved by an earlier version).
 *
 * The store writes codes as codeJson lays them out: `codeHash`, `authTime`, `clientId`,
 * `redirectUri` and, when it has one, `codeChallenge` first. The script reads those members at
 * their positions and compares the request's values with them as JSON (see
 * exchangeRefreshTokenSource), and decodes the record only when it names a DPoP key.
 */
const exchangeCodeSource = (expireGt: string) => `
${expireGt}
local FIELDS, INTS = {'r', 'exp', 'grant', 'used', 'by', 't', 'x'}, {1, 5, 12}
${EXCHANGE_LOOKUP}
${recordHead(':code:', 'codeHash', 'authTime')}
local cut = string.find(r, ',', at + 13, true)
if not cut or not holds(r, cut + 1, '"clientId":') then return {'rebuild'} end
if markAt and tonumber(string.sub(r, at + 13, cut - 1)) <= markAt then return {'invalid'} end
-- A repeated run: its refresh token was stored if its pointer is there (a new, random hash).
if f[4] and f[5] == ARGV[4] then
  local stored = ARGV[11] ~= '' and redis.call('EXISTS', KEYS[2]) == 1
  return {'redeemed', r, f[2], stored and '1' or '0'}
end
at = cut + 12
if not holds(r, at, ARGV[6]) then return {'refused', 'client'} end
at = at + #ARGV[6]
if not holds(r, at, ',"redirectUri":"') then return {'rebuild'} end
at = at + 15
if holds(r, at, '""') then
  if ARGV[8] ~= '1' then return {'refused', 'redirect_uri'} end
  at = at + 2
elseif ARGV[7] == '' or not holds(r, at, ARGV[7]) then
  return {'refused', 'redirect_uri'}
else
  at = at + #ARGV[7]
end
if not holds(r, at, ',"codeChallenge":') then
  if ARGV[9] ~= '' then return {'refused', 'code_verifier_unexpected'} end
elseif ARGV[9] == '' then return {'refused', 'code_verifier_missing'}
elseif not holds(r, at + 17, ARGV[9]) then return {'refused', 'code_verifier_mismatch'} end
${BOUND_KEY}
if bound and bound ~= ARGV[10] then return {'refused', 'dpop_key'} end
if f[4] then return {'replayed', r, f[4], f[2]} end
if not f[6] then return {'rebuild'} end
local store = ARGV[11] ~= '' and f[6] ~= '-'
local exp = f[2]
if tonumber(ARGV[5]) > tonumber(exp) then exp = ARGV[5] end
-- The template is needed only until the code is consumed.
redis.call('HDEL', key, 't', 'x')
redis.call('HSET', key, 'used', ARGV[1], 'by', ARGV[4], 'exp', exp)
redis.call('PEXPIREAT', key, exp)
if store then
  local ext = f[7] or ''
  if ARGV[13] ~= '' then
    if ext == '' then ext = '{"dpopJkt":' .. ARGV[13] .. '}'
    else ext = string.sub(ext, 1, -2) .. ',"dpopJkt":' .. ARGV[13] .. '}' end
  end
  if ext ~= '' then ext = ',"ext":' .. ext end
  local json = '{"tokenHash":"' .. ARGV[11] .. '","issuedAt":' .. ARGV[1] .. ',"expiresAt":' .. ARGV[12] .. ','
    .. f[6] .. ',"grantedAt":' .. ARGV[1] .. ext .. '}'
${writeExchanged('ARGV[11]', 'ARGV[12]', 'json', 'nil', "''")}
end
return {'redeemed', r, exp, store and '1' or '0'}
`;

/**
 * KEYS: revocation marker. ARGV: expiresAt, channel, kind (`g`, `t`), `<len>:<instance id><id>`.
 * Keeps the later expiry, so a revocation never shortens, and publishes the expiry in force on the
 * engine's revocation channel in the same atomic step (pushed revocations, revocation-channel.ts).
 */
export const revokeScript = new LuaScript(`
local INTS = {1}
${VALIDATE}
local value = ARGV[1]
local current = redis.call('GET', KEYS[1])
local changed = 1
if current and tonumber(current) >= tonumber(ARGV[1]) then
  value = current
  changed = 0
else
  redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[1])
end
redis.call('PUBLISH', ARGV[2], ARGV[3] .. '|' .. value .. '|' .. ARGV[4])
return changed
`);

/**
 * KEYS: the user's mark. ARGV: at, expiresAt, channel, `<len>:<instance id><user id>`. Keeps the
 * later `at` and the later expiry, so a mark never moves back nor shortens, and publishes the mark
 * in force (kind `u`) in the same atomic step.
 */
export const revokeSubjectScript = new LuaScript(`
local INTS = {1, 2}
${VALIDATE}
local at, exp = tonumber(ARGV[1]), tonumber(ARGV[2])
local current = redis.call('GET', KEYS[1])
if current then
  local a, e = string.match(current, '^(%-?%d+) (%-?%d+)$')
  if a then
    at = math.max(at, tonumber(a))
    exp = math.max(exp, tonumber(e))
  end
end
local value = string.format('%.0f %.0f', at, exp)
redis.call('SET', KEYS[1], value, 'PXAT', string.format('%.0f', exp))
redis.call('PUBLISH', ARGV[3], 'u|' .. value .. '|' .. ARGV[4])
return 1
`);

/**
 * Adds a refresh token to its user's index (KEYS[1]; see indexUserToken): ARGV[1] the member,
 * ARGV[2] its expiry, ARGV[3] now, ARGV[4] (optional) a member known to be rotated.
 */
const indexUserTokenSource = (expireGt: string) => `
${expireGt}
local INTS = {2, 3}
${VALIDATE}
${indexUserToken('KEYS[1]', 'ARGV[1]', 'ARGV[2]', 'ARGV[3]', 'ARGV[4]')}
return 1
`;

/** The scripts that maintain a user's index, whose Redis ≥ 7 path the tests can turn off. */
export interface GrantScripts {
  readonly redeemCode: LuaScript;
  readonly rotateRefreshToken: LuaScript;
  readonly indexUserToken: LuaScript;
  readonly exchangeCode: LuaScript;
  readonly exchangeRefreshToken: LuaScript;
}

/**
 * Builds {@link GrantScripts}: `expireGt: 'auto'` takes `PEXPIREAT … GT` where the server has it
 * (Redis ≥ 7), `'never'` keeps Redis 6.2's path everywhere (a test's way to run it on Redis 7).
 */
export function grantScripts(expireGt: 'auto' | 'never' = 'auto'): GrantScripts {
  const flag = expireGt === 'auto' ? EXPIRE_GT_AUTO : EXPIRE_GT_OFF;
  return {
    redeemCode: new LuaScript(redeemCodeSource(flag)),
    rotateRefreshToken: new LuaScript(rotateRefreshTokenSource(flag)),
    indexUserToken: new LuaScript(indexUserTokenSource(flag)),
    exchangeCode: new LuaScript(exchangeCodeSource(flag)),
    exchangeRefreshToken: new LuaScript(exchangeRefreshTokenSource(flag)),
  };
}

export const defaultGrantScripts = grantScripts();
export const redeemCodeScript = defaultGrantScripts.redeemCode;
export const rotateRefreshTokenScript = defaultGrantScripts.rotateRefreshToken;

/**
 * A code's or refresh token's lookup in one step, on a single server only: KEYS[1] the pointer.
 * ARGV: the instance's key base, the record key's part after its grant tag (`:code:<hash>`,
 * `:rt:<hash>`), the marker field (`used`, `rot`). Reads the pointer, then the record's fields
 * (`r`, `exp`, `grant`, marker, `prev`), its grant's revocation marker and its user's mark, and
 * replies `{pointer, r, exp, grant, marker, prev, revokedUntil, mark}` (false for each missing), or
 * false without a pointer. Read-only; the store judges the reply as after two round trips.
 *
 * It reads keys it does not name (it learns them from the pointer), which a Redis Cluster refuses
 * and a single server allows, so the store runs it only there (grant-store.ts); a server that
 * refuses undeclared keys too (Dragonfly's default) makes the store fall back to two round trips.
 */
export const findRecordScript = new LuaScript(`
${LUA_KEYS}
local p = redis.call('GET', KEYS[1])
if not p then return false end
local colon = string.find(p, ':', 1, true)
local length = tonumber(string.sub(p, 1, colon - 1))
local grantId = string.sub(p, colon + 1, colon + length)
local userId = string.sub(p, colon + 1 + length)
local tag = grantTag(ARGV[1], grantId)
local f = redis.call('HMGET', tag .. ARGV[2], 'r', 'exp', 'grant', ARGV[3], 'prev')
local revoked = redis.call('GET', tag .. ':revoked')
local mark = false
if userId ~= '' then mark = redis.call('GET', userMark(ARGV[1], userId)) end
return {p, f[1], f[2], f[3], f[4], f[5], revoked, mark}
`);
