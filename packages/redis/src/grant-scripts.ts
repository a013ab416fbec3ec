import { LuaScript } from './script.js';

/**
 * The grant store's atomic steps. Code and refresh-token keys are hashes: `r` (the record as JSON,
 * without the store-managed marker), `exp` (expiresAt, ms), `grant` (grant id), the marker
 * `used` / `rot` (consumedAt / rotatedAt) and `by` (the nonce of the call that set the marker).
 * Revocation markers are strings holding their expiry.
 *
 * Every script first validates its arguments (times must be whole milliseconds), then re-checks
 * expiry against the caller's `now` (ARGV[1]) and the grant revocation, and only writes once every
 * check passed: Redis does not roll a script back when a command fails midway, so a write followed
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
if f[3] ~= ARGV[2] then return {'retry'} end
local revoked = redis.call('GET', KEYS[2])
if revoked and tonumber(revoked) > now then return {'invalid'} end
if f[4] and f[5] == ARGV[3] then return REPEAT(f) end
if f[4] then return {SEEN, f[1], f[4], f[2]} end
`;

/** Stores the new refresh token of KEYS[3] from ARGV[at..at+2] (json, expiresAt, grant id). */
const storeRefreshToken = (at: number) => `
redis.call('DEL', KEYS[3])
redis.call('HSET', KEYS[3], 'r', ARGV[${at}], 'exp', ARGV[${at + 1}], 'grant', ARGV[${at + 2}])
redis.call('PEXPIREAT', KEYS[3], ARGV[${at + 1}])
`;

/**
 * KEYS: code, revoked-grant marker, [refresh token]. ARGV: now, expected grant id, nonce, keepUntil,
 * [refresh json, refresh expiresAt, refresh grant id]. The consumed code is kept until keepUntil
 * (never shortened) so that a late replay is still recognised.
 * Replies `{'replayed', json, consumedAt, exp}` or `{'redeemed', json, exp}`.
 */
export const redeemCodeScript = new LuaScript(`
local MARKER, SEEN, INTS = 'used', 'replayed', {1, 4, 6}
local REPEAT = function(f) return {'redeemed', f[1], f[2]} end
${CHECK_RECORD}
local exp = f[2]
if tonumber(ARGV[4]) > tonumber(exp) then
  exp = ARGV[4]
  redis.call('HSET', KEYS[1], 'used', ARGV[1], 'by', ARGV[3], 'exp', exp)
  redis.call('PEXPIREAT', KEYS[1], exp)
else
  redis.call('HSET', KEYS[1], 'used', ARGV[1], 'by', ARGV[3])
end
if #KEYS == 3 then
${storeRefreshToken(5)}
end
return {'redeemed', f[1], exp}
`);

/**
 * KEYS: token, revoked-grant marker, next token. ARGV: now, expected grant id, nonce, next json,
 * expiresAt, grant id. Replies `{'reused', json, rotatedAt}` or `{'rotated', json}`.
 */
export const rotateRefreshTokenScript = new LuaScript(`
local MARKER, SEEN, INTS = 'rot', 'reused', {1, 5}
local REPEAT = function(f) return {'rotated', f[1]} end
${CHECK_RECORD}
redis.call('HSET', KEYS[1], 'rot', ARGV[1], 'by', ARGV[3])
${storeRefreshToken(4)}
return {'rotated', f[1]}
`);

/** KEYS: revocation marker. ARGV: expiresAt. Keeps the later expiry, so a revocation never shortens. */
export const revokeScript = new LuaScript(`
local INTS = {1}
${VALIDATE}
local current = redis.call('GET', KEYS[1])
if current and tonumber(current) >= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[1])
return 1
`);
