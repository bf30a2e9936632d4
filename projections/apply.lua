--[[
Apply one game's slice of a read model, once: the writes happen only if the model's checkpoint for the game
still says `expected` (the version the writes were computed from), and the checkpoint moves to `new` with them.
A replayed feed entry, a restarted worker or a rebuild racing a live worker therefore never applies an event
twice or out of order: the loser gets STALE and recomputes from the checkpoint. Every key is in the game's
shard hash tag (one cluster slot).

KEYS  1 the model's checkpoint hash of the shard (game id -> last applied version)   2.. keys the ops write
ARGV  1 game id   2 expected version (0: nothing applied yet)   3 new version
      4 number of ops, then per op: argument count n, command, key index (into KEYS), n - 2 more arguments
Returns {"OK", new} | {"STALE", current}
]]
local unpack = unpack or table.unpack
local current = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if current ~= tonumber(ARGV[2]) then
  return {'STALE', current}
end
local i = 5
for _ = 1, tonumber(ARGV[4]) do
  local n = tonumber(ARGV[i])
  local cmd = ARGV[i + 1]
  local key = KEYS[tonumber(ARGV[i + 2])]
  if n > 2 then
    redis.call(cmd, key, unpack(ARGV, i + 3, i + n))
  else
    redis.call(cmd, key)
  end
  i = i + n + 1
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return {'OK', tonumber(ARGV[3])}
