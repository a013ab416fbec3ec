import { LuaScript } from './script.js';

/*
 * The client registry's scripts (key layout in keys.ts): a registration and the instance's indexes
 * of registrations share the slot `{<I>:clients}`, so each call is one atomic script, on a Cluster
 * too. `base` is `<prefix>:{<I>:clients}:`, completed in the scripts with `c:<client id>` (a
 * registration), `p:<partition>` (a partition's client ids by registeredAt) and `u:<partition>`
 * (those never used).
 */

/**
 * Lua: `forget(owners, weights, base, id)` drops a client id from its partition's bookkeeping
 * (nothing for an unpartitioned one).
 */
const FORGET = `
local function forget(owners, weights, base, id)
  local partition = redis.call('HGET', owners, id)
  if not partition then return end
  redis.call('HDEL', owners, id)
  redis.call('ZREM', base .. 'p:' .. partition, id)
  redis.call('ZREM', base .. 'u:' .. partition, id)
  if tonumber(redis.call('ZINCRBY', weights, -1, partition)) <= 0 then
    redis.call('ZREM', weights, partition)
  end
end
`;

/**
 * KEYS: index (client id scored by expiry, `+inf` while kept until deleted), owners, weights, the
 * registration's hash. ARGV: now, client id, its index score, the most live registrations ('' for
 * no bound), partition ('' for none), registeredAt, the registration as JSON (without `expiresAt`
 * and `usedAt`), expiresAt ('' to keep until deleted), usedAt ('' never used), base.
 *
 * Drops lapsed registrations from the indexes, then saves: always a replacement of a live one; a
 * new one below the bound; at the bound, a new one whose partition (unpartitioned: those without)
 * holds fewer live registrations than the heaviest partition, after deleting that partition's
 * oldest never-used registration (else its oldest). Replies `{1, evicted id or ''}`, or `{0, ''}`
 * when refused (nothing written).
 */
export const saveClientScript = new LuaScript(`${FORGET}
local index, owners, weights, key = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local id, partition, base = ARGV[2], ARGV[5], ARGV[10]
for _, lapsed in ipairs(redis.call('ZRANGEBYSCORE', index, '-inf', ARGV[1])) do
  forget(owners, weights, base, lapsed)
end
redis.call('ZREMRANGEBYSCORE', index, '-inf', ARGV[1])
local evicted = ''
if redis.call('ZSCORE', index, id) then
  forget(owners, weights, base, id)
elseif ARGV[4] ~= '' and redis.call('ZCARD', index) >= tonumber(ARGV[4]) then
  local heaviest = redis.call('ZREVRANGE', weights, 0, 0, 'WITHSCORES')
  if #heaviest == 0 then return {0, ''} end
  local held
  if partition == '' then
    held = redis.call('ZCARD', index) - redis.call('HLEN', owners)
  else
    held = tonumber(redis.call('ZSCORE', weights, partition) or '0')
  end
  if held >= tonumber(heaviest[2]) then return {0, ''} end
  evicted = redis.call('ZRANGE', base .. 'u:' .. heaviest[1], 0, 0)[1]
    or redis.call('ZRANGE', base .. 'p:' .. heaviest[1], 0, 0)[1]
  if not evicted then return {0, ''} end
  forget(owners, weights, base, evicted)
  redis.call('ZREM', index, evicted)
  redis.call('DEL', base .. 'c:' .. evicted)
end
redis.call('DEL', key)
redis.call('HSET', key, 'r', ARGV[7])
if ARGV[9] ~= '' then redis.call('HSET', key, 'used', ARGV[9]) end
if ARGV[8] ~= '' then
  redis.call('HSET', key, 'exp', ARGV[8])
  redis.call('PEXPIREAT', key, ARGV[8])
end
redis.call('ZADD', index, ARGV[3], id)
if partition ~= '' then
  redis.call('HSET', owners, id, partition)
  redis.call('ZADD', base .. 'p:' .. partition, ARGV[6], id)
  if ARGV[9] == '' then redis.call('ZADD', base .. 'u:' .. partition, ARGV[6], id) end
  redis.call('ZINCRBY', weights, 1, partition)
end
return {1, evicted}
`);

/**
 * KEYS: the registration's hash, index, owners. ARGV: now, new expiresAt ('' to keep until
 * deleted), its index score, client id, base. Records a use of a live registration: moves its
 * expiry, sets `used` to now, and takes it off its partition's never-used ones. Replies 1, or 0
 * when it is missing or lapsed.
 */
export const touchClientScript = new LuaScript(`
local key, index, owners = KEYS[1], KEYS[2], KEYS[3]
if redis.call('EXISTS', key) == 0 then return 0 end
local exp = redis.call('HGET', key, 'exp')
if exp and tonumber(exp) <= tonumber(ARGV[1]) then return 0 end
if ARGV[2] == '' then
  redis.call('HDEL', key, 'exp')
  redis.call('PERSIST', key)
else
  redis.call('HSET', key, 'exp', ARGV[2])
  redis.call('PEXPIREAT', key, ARGV[2])
end
redis.call('HSET', key, 'used', ARGV[1])
redis.call('ZADD', index, 'XX', ARGV[3], ARGV[4])
local partition = redis.call('HGET', owners, ARGV[4])
if partition then redis.call('ZREM', ARGV[5] .. 'u:' .. partition, ARGV[4]) end
return 1
`);

/**
 * KEYS: a registration written before fair shares (its own slot; see keys.ts). ARGV: now, new
 * expiresAt ('' to keep until deleted). The use of such a registration, as {@link touchClientScript}
 * (its index entry is moved apart, in the index's slot). Replies 1, or 0 when missing or lapsed.
 */
export const touchLegacyClientScript = new LuaScript(`
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
redis.call('HSET', KEYS[1], 'used', ARGV[1])
return 1
`);

/** KEYS: the registration's hash, index, owners, weights. ARGV: client id, base. Deletes it. */
export const deleteClientScript = new LuaScript(`${FORGET}
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
forget(KEYS[3], KEYS[4], ARGV[2], ARGV[1])
return 1
`);
