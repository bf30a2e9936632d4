--[[
Release a shard's lease if (and only if) this worker still holds it.
KEYS 1 lease   ARGV 1 the lease value this worker holds
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
