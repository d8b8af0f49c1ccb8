-- Sluice's Redis store: one script per decision. This file is the prelude; one file per
-- algorithm follows, then main.lua, the dispatcher. The Java side concatenates them in that order.
--
-- Arithmetic: every value is an integer number of microseconds (or permits) held in a Lua
-- number, which is exact below 2^53; the Java side keeps every configured duration below 2^52
-- and now is about 2^50.6 (year 2026), so sums and differences stay exact. Divisions go through
-- idiv, which corrects the one-off error a floating-point quotient may carry.

-- Before Redis 5 a script that reads TIME must switch to effects replication; later versions
-- replicate effects always and keep this call as a harmless no-op.
if redis.replicate_commands then
  redis.replicate_commands()
end

local A = {}
local NEVER = -1

local function idiv(a, b)
  local q = math.floor(a / b)
  if q * b > a then
    q = q - 1
  elseif (q + 1) * b <= a then
    q = q + 1
  end
  return q
end

local function max(a, b)
  if a > b then return a end
  return b
end

local function min(a, b)
  if a < b then return a end
  return b
end

-- An integer as a command argument. redis.call's own conversion of numbers and Lua's
-- tostring may use an exponent ("1.7e+15") or lose digits; %.0f is exact for integers < 2^53.
local function s(x)
  return string.format('%.0f', x)
end

-- A TTL in milliseconds, rounded up so that a key never expires before its state is fresh.
local function px(us)
  return max(1, idiv(us + 999, 1000))
end

-- A string value as a number, or nil when the key is missing or holds another type (a policy
-- whose algorithm changed): such a key is treated as fresh and overwritten.
local function get_number(key)
  local v = redis.pcall('GET', key)
  if type(v) ~= 'string' then
    return nil
  end
  return tonumber(v)
end

-- Deletes the key if it holds a type other than t, so that a write of type t cannot fail.
local function claim(key, t)
  local actual = redis.call('TYPE', key)['ok']
  if actual ~= 'none' and actual ~= t then
    redis.call('DEL', key)
  end
end

-- A hash field as a number, or nil (missing key, missing field, or another type).
local function hget_numbers(key, f1, f2)
  local v = redis.pcall('HMGET', key, f1, f2)
  if type(v) ~= 'table' or v['err'] then
    return nil, nil
  end
  return tonumber(v[1]), tonumber(v[2])
end


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

-- The algorithms whose state is one instant (us) in a string key: token bucket, GCRA and both
-- leaky buckets. Their commit stores the decision's new instant, r[6], for r[3]: the time until
-- the state is fresh again, when the key may expire.
local function commit_instant(key, now, cost, p, r)
  redis.call('SET', key, s(r[6]), 'PX', s(px(r[3])))
end

-- Lowers an instant-algorithm key to `instant`, its state being fresh from `floor` on: the key is
-- deleted when nothing is left above the floor (a missing key reads as fresh), and otherwise
-- expires when the floor catches up with it.
local function set_instant(key, instant, floor)
  if instant <= floor then
    redis.call('DEL', key)
  else
    redis.call('SET', key, s(instant), 'PX', s(px(instant - floor)))
  end
end

-- Refunds carry the receipt the admission's script returned (p[6]): a number, or '-' when there is
-- none. What a receipt means is the algorithm's own (a clock reading, a window start, a slot, a
-- log timestamp, a published schedule); a refund gives back only what the receipt proves is still
-- the admission's.
local function receipt_of(p)
  local r = p[6]
  if type(r) == 'number' then
    return r
  end
  return nil
end

-- The refund of the instant algorithms (token bucket, GCRA, policing leaky bucket), as
-- io.github.sluice.algorithm.TimeWord: an admission at reading t of `took` microseconds (cost
-- times the interval) moves the stored instant back by took - (now - t), never below `floor`
-- (the fresh state), and not at all once that is not positive: what time refilled since t may
-- already have been given back and taken by later requests. The script is atomic and reads its
-- clock after every admission it can see, so now bounds their readings (with a client clock,
-- as far as the instances' clocks agree).
local function instant_refund(key, now, took, t, floor)
  if not t or now < t then
    return
  end
  local back = took - (now - t)
  if back <= 0 then
    return
  end
  local stored = get_number(key)
  if not stored or stored <= floor then
    return
  end
  set_instant(key, max(stored - back, floor), floor)
end
