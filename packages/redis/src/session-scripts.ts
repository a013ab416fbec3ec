import { LuaScript } from './script.js';

/** KEYS: session hash. ARGV: lastSeenAt. Touches a live session only; a missing one stays missing. */
export const touchSessionScript = new LuaScript(`
local exp = redis.call('HGET', KEYS[1], 'exp')
if not exp or tonumber(exp) <= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'seen', ARGV[1])
return 1
`);

/**
 * KEYS: window hash. ARGV: now, windowMs. Adds one to the live window or starts a new one; the key
 * expires with its window.
 */
export const incrementScript = new LuaScript(`
local now = tonumber(ARGV[1])
local f = redis.call('HMGET', KEYS[1], 'count', 'reset')
if f[1] and tonumber(f[2]) > now then
  return {redis.call('HINCRBY', KEYS[1], 'count', 1), f[2]}
end
local reset = string.format('%.0f', now + tonumber(ARGV[2]))
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'count', 1, 'reset', reset)
redis.call('PEXPIREAT', KEYS[1], reset)
return {1, reset}
`);
