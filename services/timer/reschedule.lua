--[[
Set a game's next clock alarm, but only if the game is still at the version the timer computed it from.

KEYS: 1 the shard's clocks zset, 2 the game's meta hash.  ARGV: 1 game id, 2 version, 3 alarm ms ("-": none).
A commit in between has set the alarm of the newer state already (commit.lua): the timer's older view must not
overwrite it. Returns 1 when set, 0 when the game moved.
]]
if redis.call('HGET', KEYS[2], 'version') ~= ARGV[2] then
  return 0
end
if ARGV[3] == '-' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
end
return 1
