--[[
Commit one command of one shard, atomically. Every key is in the shard's hash tag (one cluster slot).

KEYS
   1 lease    2 cmds     3 outcome   4 reply    5 meta
   6 events   7 snap     8 feed      9 games   10 ended   11 dead   12 commands (the game's command log)
  13 clocks (the shard's next clock alarm of each clocked game, for the timer process)
ARGV
   1 fencing token: the lease value this worker holds
   2 consumer group
   3 stream entry id of the command
   4 op: "append" | "create" | "reject" | "dead"
   5 base version the worker decided at (-1: do not check)
   6 outcome JSON ("" when the entry has no usable command id: nothing to record or answer)
   7 command id
   8 game id
   9 game name
  10 now (ms)
  11 status after: "" (unchanged) | "active" | "over"
  12 snapshot version ("" for none)
  13 snapshot bytes
  14 reply ttl (ms; 0: push no reply, the submitter never waits)
  15 outcome ttl (ms, 0 keeps it forever)
  16 feed maxlen (approximate trim)
  17 command log kind: "cmd" | "create" | "" (nothing to log: dead letters, entries without a usable game)
  18 seat of the command ("" for a creation or an entry naming no usable seat)
  19 the command as JSON (for a creation: name, players, settings, seed; never a token)
  20 digest of the command's content ("" unknown): the same command id with another digest is a conflict
  21 record: "1" checks for an earlier outcome of the command id and stores this one; "0" only answers the
     submitter (a sender that proved no seat, or a command id conflict: neither may decide or shadow the
     outcome of the seat's command of that id)
  22 rejections of one seat kept in the command log (0: no cap); beyond, only the counter grows
  23 the reply pushed to the submitter when it is not the outcome itself ("": the outcome): an accepted
     command's reply carries its events too, the stored outcome does not
  24 the game's next clock alarm after an accepted command: "" leaves the clocks key alone (a game without
     clocks), "-" removes the game from it (no clock runs), else the alarm's time in ms
  25 M: number of field/value pairs that follow (meta fields for append/create, dead-letter fields for dead)
  26 .. 25+2M: the pairs
  then, for append/create, one event JSON per argument

The command log (KEYS[12]) gets one entry per accepted command, and per rejected command up to the cap per
seat, of an existing game, written with its events: id `<version>-<n>` (the version after the command; n
counts rejections judged at that version), so the command behind event v is the first entry at or after
`<v>-0`. Fields: `id` command id, `k` kind, `seat`, `p` command JSON, `rcv` ms the command entered the stream
(from its entry id), `at` ms of the commit, `o` the outcome JSON. The meta hash counts every rejection of a
seat in `rejected.<seat>` (`rejected.new` for creations, `rejected._` for no usable seat), kept or not.
Events and feed entries carry `t`, the ms of the commit. The shard feed gets one entry per commit: `g` game,
`f` and `v` the first and last version it wrote, `n` game name, `c` command id, `t`; no event bodies (see
services/store/eventstore.py: read_announced).

Under maxmemory, Redis refuses a script at its first write that may grow memory (OOM) and never in the middle:
a refused commit wrote nothing, and the worker retries it.
Returns
  {"OK", version} | {"DUP", first outcome} | {"IDCONFLICT", first outcome} | {"FENCED"}
  | {"CONFLICT", actual version}
]]
local unpack = unpack or table.unpack

-- Fencing: only the holder of the current lease may write. A stale worker (lease expired, taken over, or
-- never held) writes nothing at all, not even an ack.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return {'FENCED'}
end

local op = ARGV[4]
local outcome = ARGV[6]

local function answer(text)
  if text ~= '' and ARGV[14] ~= '0' then
    redis.call('RPUSH', KEYS[4], text)
    redis.call('PEXPIRE', KEYS[4], ARGV[14])
  end
end

local function finish()
  -- The command is done: out of the pending list and out of the stream (the stream is a work queue; the
  -- record is the outcome and the events). Deleting also frees an oversized entry at once.
  redis.call('XACK', KEYS[2], ARGV[2], ARGV[3])
  redis.call('XDEL', KEYS[2], ARGV[3])
end

-- Duplicate check: a command id that already has an outcome gets that first outcome back and writes nothing,
-- if it names the same command; another command under a used id writes nothing here either, and the worker
-- answers it command_id_conflict (record "0").
local record = ARGV[21] == '1'
if outcome ~= '' and record then
  local first = redis.call('GET', KEYS[3])
  if first then
    local seen = string.match(first, '"digest":"(%x+)"')
    if seen and ARGV[20] ~= '' and seen ~= ARGV[20] then
      return {'IDCONFLICT', first}
    end
    answer(first)
    finish()
    return {'DUP', first}
  end
end

local current = tonumber(redis.call('HGET', KEYS[5], 'version') or '-1')
local base = tonumber(ARGV[5])
if op == 'create' then
  if current ~= -1 then
    return {'CONFLICT', current}
  end
  base = 0
elseif base >= 0 and current ~= base then
  -- The worker decided on a state that is not the stored one: nothing is written, it reloads and retries.
  return {'CONFLICT', current}
end

local m = tonumber(ARGV[25])
local version = current
if op == 'append' or op == 'create' then
  if m > 0 then
    redis.call('HSET', KEYS[5], unpack(ARGV, 26, 25 + 2 * m))
  end
  version = base
  for j = 26 + 2 * m, #ARGV do
    version = version + 1
    -- Entry id 0-<version>: appending at the expected version is what makes a double write impossible.
    redis.call('XADD', KEYS[6], '0-' .. version, 'e', ARGV[j], 'c', ARGV[7], 't', ARGV[10])
  end
  if version > base then
    -- One feed entry per commit, announcing the versions base+1 .. version; the events themselves are read from
    -- the game's stream (one copy of each event in memory, not two).
    redis.call('XADD', KEYS[8], 'MAXLEN', '~', ARGV[16], '*',
      'g', ARGV[8], 'f', base + 1, 'v', version, 'n', ARGV[9], 'c', ARGV[7], 't', ARGV[10])
  end
  redis.call('HSET', KEYS[5], 'version', version, 'updated', ARGV[10])
  if op == 'create' then
    redis.call('ZADD', KEYS[9], ARGV[10], ARGV[8])
  end
  if ARGV[11] == 'over' then
    redis.call('ZREM', KEYS[9], ARGV[8])
    redis.call('ZADD', KEYS[10], ARGV[10], ARGV[8])
  end
  if ARGV[11] ~= '' then
    redis.call('HSET', KEYS[5], 'status', ARGV[11])
  end
  if ARGV[12] ~= '' then
    redis.call('HSET', KEYS[7], 'v', ARGV[12], 'd', ARGV[13])
  end
  -- The clock alarm moves with the commit: no accepted move can leave the timer a stale deadline.
  if ARGV[24] == '-' then
    redis.call('ZREM', KEYS[13], ARGV[8])
  elseif ARGV[24] ~= '' then
    redis.call('ZADD', KEYS[13], ARGV[24], ARGV[8])
  end
elseif op == 'dead' then
  redis.call('XADD', KEYS[11], 'MAXLEN', '~', ARGV[16], '*', unpack(ARGV, 26, 25 + 2 * m))
elseif op ~= 'reject' then
  return redis.error_reply('unknown op ' .. op)
end

-- The command log: only for a game that exists now (an unknown game id gets no log of its own) and is still
-- on the hot path (an archived game's log is in its archive; what it answers now is just game_over).
if ARGV[17] ~= '' and outcome ~= '' and version >= 1 and redis.call('HGET', KEYS[5], 'status') ~= 'archived' then
  local seq = 0
  if op == 'reject' then
    -- Rejections are bounded per seat (an attacker's flood of refused commands must not grow the log for
    -- ever); the counter keeps how many there were in all.
    local who = ARGV[18]
    if ARGV[17] == 'create' then
      who = 'new'
    elseif who == '' then
      who = '_'
    end
    local cap = tonumber(ARGV[22])
    if redis.call('HINCRBY', KEYS[5], 'rejected.' .. who, 1) > cap and cap > 0 then
      seq = -1
    end
  end
  local last = seq == 0 and redis.call('XREVRANGE', KEYS[12], '+', '-', 'COUNT', 1)[1]
  if last then
    local lv, ls = string.match(last[1], '^(%d+)-(%d+)$')
    if tonumber(lv) == version then
      seq = tonumber(ls) + 1
    elseif tonumber(lv) > version then
      seq = -1  -- cannot happen (versions only grow); never let an XADD error undo half a commit
    end
  end
  if seq >= 0 then
    local received = string.match(ARGV[3], '^(%d+)-') or ''
    redis.call('XADD', KEYS[12], version .. '-' .. seq, 'id', ARGV[7], 'k', ARGV[17], 'seat', ARGV[18],
      'p', ARGV[19], 'rcv', received, 'at', ARGV[10], 'o', outcome)
  end
end

if outcome ~= '' then
  if record then
    if tonumber(ARGV[15]) > 0 then
      redis.call('SET', KEYS[3], outcome, 'PX', ARGV[15])
    else
      redis.call('SET', KEYS[3], outcome)
    end
  end
  if ARGV[23] ~= '' then
    answer(ARGV[23])
  else
    answer(outcome)
  end
end
finish()
return {'OK', version}
