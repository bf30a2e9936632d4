--[[
Put one dead letter back on its shard's command stream, atomically (an operator's retry). Every key is in the
shard's hash tag.

KEYS
   1 the shard's dead-letter stream   2 the shard's command stream   3 the command's outcome key
   4 the command's reply list
ARGV
   1 the dead letter's entry id
   2.. the field/value pairs of the command entry to add
Returns
  {"OK", new entry id} | {"GONE"} (no such dead letter: already retried or discarded)
  | {"ANSWERED", outcome} (the command id has an outcome other than a dead letter: retrying would change nothing)
]]
local unpack = unpack or table.unpack

if #redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[1]) == 0 then
  return {'GONE'}
end
local first = redis.call('GET', KEYS[3])
if first and not string.find(first, '"status":"dead_letter"', 1, true) then
  return {'ANSWERED', first}
end
-- The dead-letter outcome goes, or the retried command would be answered as a duplicate of it; so does its
-- reply, or a submitter waiting again would be handed the old answer.
redis.call('DEL', KEYS[3], KEYS[4])
local id = redis.call('XADD', KEYS[2], '*', unpack(ARGV, 2))
redis.call('XDEL', KEYS[1], ARGV[1])
return {'OK', id}
