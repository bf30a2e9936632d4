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

-- The checkpoint is the truth: a stream entry at or past an id about to be written is a leftover (of a rebuild
-- that deleted the checkpoint while a live worker still wrote), and is dropped first, so an XADD never fails
-- half-way through a script (Redis does not roll back the writes before an error).
local function split(id)
  local ms, seq = string.match(id, '^(%d+)-(%d+)$')
  return tonumber(ms), tonumber(seq)
end
local function clear_from(key, id)
  local last = redis.call('XREVRANGE', key, '+', '-', 'COUNT', 1)[1]
  if not last then
    return
  end
  local lms, lseq = split(last[1])
  local ms, seq = split(id)
  if lms > ms or (lms == ms and lseq >= seq) then
    -- A stream never takes an id below its top one, even after XDEL: rewrite it with the entries before `id`.
    local keep = {}
    if seq > 0 then
      keep = redis.call('XRANGE', key, '-', ms .. '-' .. (seq - 1))
    elseif ms > 0 then
      keep = redis.call('XRANGE', key, '-', (ms - 1) .. '-18446744073709551615')
    end
    redis.call('DEL', key)
    for _, entry in ipairs(keep) do
      redis.call('XADD', key, entry[1], unpack(entry[2]))
    end
  end
end

local checked = {}
local i = 5
for _ = 1, tonumber(ARGV[4]) do
  local n = tonumber(ARGV[i])
  local cmd = ARGV[i + 1]
  local key = KEYS[tonumber(ARGV[i + 2])]
  if cmd == 'XADD' and not checked[key] then
    checked[key] = true
    clear_from(key, ARGV[i + 3])
  end
  if n > 2 then
    redis.call(cmd, key, unpack(ARGV, i + 3, i + n))
  else
    redis.call(cmd, key)
  end
  i = i + n + 1
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return {'OK', tonumber(ARGV[3])}
