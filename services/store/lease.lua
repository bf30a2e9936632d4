--[[
Acquire or renew a shard's writer lease, handing out a fresh fencing token on every new acquisition.

KEYS  1 lease   2 fence counter
ARGV  1 the lease value this worker holds ("" if none)   2 ttl (ms)   3 worker id
Returns the lease value now held (renewed or new), or false when another worker holds it.
]]
local held = redis.call('GET', KEYS[1])
if held then
  if held == ARGV[1] then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return held
  end
  return false
end
-- Free (never taken, released, or expired): a new, strictly larger token, so that whatever an earlier
-- holder still tries to commit is refused by the commit script's fencing check.
local token = redis.call('INCR', KEYS[2]) .. ':' .. ARGV[3]
redis.call('SET', KEYS[1], token, 'PX', ARGV[2])
return token
