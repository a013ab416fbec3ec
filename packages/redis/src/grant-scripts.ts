import { LuaScript } from './script.js';

/**
 * The grant store's atomic steps. Code and refresh-token keys are hashes: `r` (the record as JSON,
 * without the store-managed marker), `exp` (expiresAt, ms), `grant` (grant id) and the marker
 * `used` / `rot` (consumedAt / rotatedAt). Revocation markers are strings holding their expiry.
 * Every script re-checks expiry against the caller's `now` (ARGV[1]) and the grant revocation, and
 * only writes once every check passed, so a losing or failing call writes nothing.
 */

const CHECK_RECORD = `
local now = tonumber(ARGV[1])
local f = redis.call('HMGET', KEYS[1], 'r', 'exp', 'grant', MARKER)
if not f[1] or tonumber(f[2]) <= now then return {'invalid'} end
if f[3] ~= ARGV[2] then return {'retry'} end
local revoked = redis.call('GET', KEYS[2])
if revoked and tonumber(revoked) > now then return {'invalid'} end
if f[4] then return {SEEN, f[1], f[4], f[2]} end
`;

/** Stores the new refresh token of KEYS[3] from ARGV[at..at+2] (json, expiresAt, grant id). */
const storeRefreshToken = (at: number) => `
redis.call('DEL', KEYS[3])
redis.call('HSET', KEYS[3], 'r', ARGV[${at}], 'exp', ARGV[${at + 1}], 'grant', ARGV[${at + 2}])
redis.call('PEXPIREAT', KEYS[3], ARGV[${at + 1}])
`;

/**
 * KEYS: code, revoked-grant marker, [refresh token]. ARGV: now, expected grant id, keepUntil,
 * keepUntil as a PEXPIREAT time, [refresh json, refresh expiresAt, refresh grant id]. The consumed
 * code is kept until keepUntil (never shortened) so that a late replay is still recognised.
 * Replies `{'replayed', json, consumedAt, exp}` or `{'redeemed', json, exp}`.
 */
export const redeemCodeScript = new LuaScript(`
local MARKER, SEEN = 'used', 'replayed'
${CHECK_RECORD}
local exp = f[2]
if tonumber(ARGV[3]) > tonumber(exp) then
  exp = ARGV[3]
  redis.call('HSET', KEYS[1], 'used', ARGV[1], 'exp', exp)
  redis.call('PEXPIREAT', KEYS[1], ARGV[4])
else
  redis.call('HSET', KEYS[1], 'used', ARGV[1])
end
if #KEYS == 3 then
${storeRefreshToken(5)}
end
return {'redeemed', f[1], exp}
`);

/** KEYS: token, revoked-grant marker, next token. ARGV: now, expected grant id, next json, expiresAt, grant id. */
export const rotateRefreshTokenScript = new LuaScript(`
local MARKER, SEEN = 'rot', 'reused'
${CHECK_RECORD}
redis.call('HSET', KEYS[1], 'rot', ARGV[1])
${storeRefreshToken(3)}
return {'rotated', f[1]}
`);

/** KEYS: revocation marker. ARGV: expiresAt. Keeps the later expiry, so a revocation never shortens. */
export const revokeScript = new LuaScript(`
local current = redis.call('GET', KEYS[1])
if current and tonumber(current) >= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[1])
return 1
`);
