--[[
Count one ended game into its game's leaderboard, once (a replayed end or a rebuild never counts it twice).

Every value written derives from the arguments and what earlier counts wrote, and each update is an exact
integer sum (or a float sum of the game's scores, exact for integer scores), so counting the same games in
any order (live, or a rebuild going shard by shard) gives the same leaderboard byte for byte. The display name
kept is the one of the player's latest game by (end ms, game id), not of the last game counted.

KEYS  1 counted (set of game ids)   2 games   3 wins (in win units)   4 shared (shared victories)
      5 score (sum)   6 scored (games whose score was known)   7 name (display name last used)
      8 last (end marker of the game that name comes from)   9 rank (zset, all scores 0: ordered by member)
      10 member (player id -> its current member of rank)
      (2-8 and 10 are hashes by player id)
ARGV  1 game id   2 end marker ("<end ms, zero-padded>:<game id>", compared as a string)
      then per ranked seat: player id, display name, win units (integer), shared ("1"/"0"), score ("" unknown)
Returns 1 (counted now) | 0 (counted before)

A rank member is "<wins>:<average>:<games>:<player id>", each part fixed-width so that the byte order of
members is the leaderboard's order: most wins first, then the best average score (a player with no known score
after every scored one), then the most games, then the player id.
]]
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then
  return 0
end
local marker = ARGV[2]
local AVERAGE_BOUND = 1e9  -- |average| beyond this is clamped (micro-units stay exact in a double)

local function rank_member(pid)
  local games = tonumber(redis.call('HGET', KEYS[2], pid) or '0')
  local wins = tonumber(redis.call('HGET', KEYS[3], pid) or '0')
  local scored = tonumber(redis.call('HGET', KEYS[6], pid) or '0')
  local average_part = 'x'  -- sorts after every digit: no known score
  if scored > 0 then
    local average = tonumber(redis.call('HGET', KEYS[5], pid)) / scored
    average = math.max(-AVERAGE_BOUND, math.min(AVERAGE_BOUND, average))
    -- Higher averages first: the negated average in micro-units, shifted to be non-negative.
    local micros = math.floor(-average * 1e6 + 0.5)
    average_part = string.format('%016d', micros + AVERAGE_BOUND * 1e6)
  end
  return string.format('%015d', 999999999999999 - wins) .. ':' .. average_part .. ':'
    .. string.format('%012d', 999999999999 - games) .. ':' .. pid
end

for i = 3, #ARGV, 5 do
  local pid, name, units, shared, score = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4]
  redis.call('HINCRBY', KEYS[2], pid, 1)
  if units ~= '0' then
    redis.call('HINCRBY', KEYS[3], pid, units)
  end
  if shared == '1' then
    redis.call('HINCRBY', KEYS[4], pid, 1)
  end
  if score ~= '' then
    redis.call('HINCRBYFLOAT', KEYS[5], pid, score)
    redis.call('HINCRBY', KEYS[6], pid, 1)
  end
  local last = redis.call('HGET', KEYS[8], pid)
  if not last or last < marker then
    redis.call('HSET', KEYS[7], pid, name)
    redis.call('HSET', KEYS[8], pid, marker)
  end
  local old = redis.call('HGET', KEYS[10], pid)
  if old then
    redis.call('ZREM', KEYS[9], old)
  end
  local member = rank_member(pid)
  redis.call('ZADD', KEYS[9], 0, member)
  redis.call('HSET', KEYS[10], pid, member)
end
return 1
