--[[
Move an ended game off the hot path: its events, command log and snapshot become one archive blob (kept for
replay and audit).

KEYS  1 lease   2 meta   3 events   4 snap   5 archive   6 ended   7 commands (the game's command log)
ARGV  1 fencing token   2 archive blob   3 version the blob covers   4 game id   5 now (ms)
      6 id of the last command-log entry the blob covers ("" for none)
Returns {"OK"} | {"FENCED"} | {"CONFLICT", reason}
]]
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return {'FENCED'}
end
if redis.call('HGET', KEYS[2], 'status') ~= 'over' then
  return {'CONFLICT', 'not over'}
end
if redis.call('HGET', KEYS[2], 'version') ~= ARGV[3] then
  return {'CONFLICT', 'version moved'}
end
local last = redis.call('XREVRANGE', KEYS[7], '+', '-', 'COUNT', 1)[1]
if (last and last[1] or '') ~= (ARGV[6] or '') then
  return {'CONFLICT', 'command log moved'}
end
redis.call('SET', KEYS[5], ARGV[2])
redis.call('DEL', KEYS[3], KEYS[4], KEYS[7])
redis.call('HSET', KEYS[2], 'status', 'archived', 'archived', ARGV[5])
redis.call('ZREM', KEYS[6], ARGV[4])
return {'OK'}
