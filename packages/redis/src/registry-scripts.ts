import { LuaScript } from './script.js';

/**
 * KEYS: registered client hash (`r`: the registration as JSON without `expiresAt`; `exp`: its
 * expiry, absent while kept until deleted). ARGV: now, new expiresAt ('' to keep until deleted).
 * Moves the expiry of a live registration; replies 1, or 0 when it is missing or lapsed.
 */
export const touchClientScript = new LuaScript(`
local exp = redis.call('HGET', KEYS[1], 'exp')
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if exp and tonumber(exp) <= tonumber(ARGV[1]) then return 0 end
if ARGV[2] == '' then
  redis.call('HDEL', KEYS[1], 'exp')
  redis.call('PERSIST', KEYS[1])
else
  redis.call('HSET', KEYS[1], 'exp', ARGV[2])
  redis.call('PEXPIREAT', KEYS[1], ARGV[2])
end
return 1
`);

/**
 * KEYS: the index of registered clients (sorted set: client id scored by expiry, `+inf` while kept
 * until deleted). ARGV: now, client id, its expiry ('+inf' to keep until deleted), the most live
 * registrations ('' for no bound). Drops lapsed members, then holds a place for the client: always
 * for a live one (a replacement), else only below the bound. Replies 1, or 0 when full.
 */
export const reserveClientScript = new LuaScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if ARGV[4] ~= '' and not redis.call('ZSCORE', KEYS[1], ARGV[2]) then
  if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
return 1
`);
