--[[
Count one ended game into the leaderboard, once (a replayed end or a rebuild never counts it twice).

KEYS  1 set of counted game ids   2 games per player   3 wins per player   4 score sum per player
      5 scored games per player (games whose score was known)
ARGV  1 game id, then per seat: player name, won ("1"/"0"), score ("" when unknown)
Returns 1 (counted now) | 0 (counted before)
]]
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then
  return 0
end
for i = 2, #ARGV, 3 do
  local name = ARGV[i]
  redis.call('HINCRBY', KEYS[2], name, 1)
  if ARGV[i + 1] == '1' then
    redis.call('HINCRBY', KEYS[3], name, 1)
  end
  if ARGV[i + 2] ~= '' then
    redis.call('HINCRBYFLOAT', KEYS[4], name, ARGV[i + 2])
    redis.call('HINCRBY', KEYS[5], name, 1)
  end
end
return 1
