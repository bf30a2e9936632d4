--[[
The timer's claim on a shard's due clock alarms (KEYS[1]: the shard's clocks zset, game id -> alarm ms).

ARGV: 1 now (ms), 2 hold (ms), 3 at most this many games.
Every game whose alarm is due (score <= now) is moved to now + hold and returned: one timer process works on it
while another sees it as not due; if the claimant dies (kill -9) before the game's next commit moves the alarm,
the hold runs out and the game is due again, so no alarm is ever lost.
]]
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local until_ms = tonumber(ARGV[1]) + tonumber(ARGV[2])
for _, gid in ipairs(due) do
  redis.call('ZADD', KEYS[1], until_ms, gid)
end
return due
