-- Included by the branches of define(kind) whose algorithms keep sorted sets of permits
-- (concurrency, sliding-log); see Script.java.

-- Sorted sets of permits (concurrency leases, sliding-log entries) hold one member per permit:
-- '<id>#<index>' for the `count` permits of one acquisition from index `first`, so that an
-- instance can name exactly the permits it took. Commands take members BATCH at a time: unpack
-- pushes every value onto Lua's C stack, which holds at most 8000 (LUAI_MAXCSTACK), and a cost
-- may be larger ("too many results to unpack" would fail the whole script).
local BATCH = 1000

-- ZADD of one acquisition's members, all with the same score, BATCH at a time. `flag` is nil or
-- a ZADD flag ('XX': update only). `call` is redis.call, or redis.pcall where a key of another
-- type must not fail the script.
local function zadd_members(call, key, flag, score, id, first, count)
  local last = first + count - 1
  for from = first, last, BATCH do
    local args = {}
    if flag then
      args[1] = flag
    end
    for j = from, min(last, from + BATCH - 1) do
      args[#args + 1] = score
      args[#args + 1] = id .. '#' .. s(j)
    end
    call('ZADD', key, unpack(args))
  end
end

-- ZREM of one acquisition's members, BATCH at a time.
local function zrem_members(call, key, id, first, count)
  local last = first + count - 1
  for from = first, last, BATCH do
    local members = {}
    for j = from, min(last, from + BATCH - 1) do
      members[#members + 1] = id .. '#' .. s(j)
    end
    call('ZREM', key, unpack(members))
  end
end

-- ZREM of a list of members, BATCH at a time.
local function zrem_list(call, key, members)
  for i = 1, #members, BATCH do
    call('ZREM', key, unpack(members, i, min(#members, i + BATCH - 1)))
  end
end

-- How many members are scored after `boundary` (exclusive): 0 for a missing key or another type.
local function zcount_after(key, boundary)
  local n = redis.pcall('ZCOUNT', key, '(' .. s(boundary), '+inf')
  if type(n) ~= 'number' then
    return 0
  end
  return n
end

-- The highest score of a sorted set, or nil (empty, missing, or another type).
local function zmax_score(key)
  local top = redis.pcall('ZREVRANGE', key, 0, 0, 'WITHSCORES')
  if type(top) == 'table' and top[2] then
    return tonumber(top[2])
  end
  return nil
end
