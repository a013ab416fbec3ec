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
