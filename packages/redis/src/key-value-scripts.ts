import { LuaScript } from './script.js';

/*
 * The key-value store's entries are hashes: `v` (the value) and `exp` (its expiry, ms), with the
 * key's own expiry set to `exp` (`PEXPIREAT`). The scripts compare `exp` with the caller's `now`,
 * as every other store of the engine does, so an entry is absent from `now` = `exp` on whatever
 * Redis's clock says; Redis still deletes it by itself at `exp`.
 */

/**
 * KEYS: entry hash. ARGV: now, value, expiresAt. Sets the entry when it is absent or expired at
 * `now` (set-if-absent); replies 1 when this call set it, 0 when a live entry was there.
 */
export const addScript = new LuaScript(`
local exp = redis.call('HGET', KEYS[1], 'exp')
if exp and tonumber(exp) > tonumber(ARGV[1]) then return 0 end
redis.call('DEL', KEYS[1])
if tonumber(ARGV[3]) <= tonumber(ARGV[1]) then return 1 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'exp', ARGV[3])
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
return 1
`);

/**
 * KEYS: entry hash. ARGV: now. Replies the live value and deletes the entry in the same step
 * (single use), or nil when it is absent or expired at `now`.
 */
export const takeScript = new LuaScript(`
local f = redis.call('HMGET', KEYS[1], 'v', 'exp')
if not f[1] or tonumber(f[2]) <= tonumber(ARGV[1]) then return false end
redis.call('DEL', KEYS[1])
return f[1]
`);

/**
 * KEYS: entry hash. ARGV: now, expected, value, expiresAt. Compare-and-set: replaces a live entry
 * whose value is exactly `expected`; replies 1 when replaced, else 0. An `expiresAt` at or before
 * `now` ends the entry.
 */
export const swapScript = new LuaScript(`
local f = redis.call('HMGET', KEYS[1], 'v', 'exp')
if not f[1] or tonumber(f[2]) <= tonumber(ARGV[1]) or f[1] ~= ARGV[2] then return 0 end
redis.call('DEL', KEYS[1])
if tonumber(ARGV[4]) <= tonumber(ARGV[1]) then return 1 end
redis.call('HSET', KEYS[1], 'v', ARGV[3], 'exp', ARGV[4])
redis.call('PEXPIREAT', KEYS[1], ARGV[4])
return 1
`);

/**
 * KEYS: entry hash. ARGV: now, by, expiresAt. Adds `by` to a live counter (its expiry kept), or
 * starts it at `by` until `expiresAt` when absent or expired at `now`; replies the new count.
 */
export const incrementScript = new LuaScript(`
local f = redis.call('HMGET', KEYS[1], 'v', 'exp')
if f[1] and tonumber(f[2]) > tonumber(ARGV[1]) then
  return redis.call('HINCRBY', KEYS[1], 'v', ARGV[2])
end
redis.call('DEL', KEYS[1])
if tonumber(ARGV[3]) <= tonumber(ARGV[1]) then return tonumber(ARGV[2]) end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'exp', ARGV[3])
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
return tonumber(ARGV[2])
`);
