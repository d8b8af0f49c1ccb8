-- Sluice's Redis store: one script per decision. This file is the prelude; one file per
-- algorithm follows, then main.lua, the dispatcher. The Java side (Script.load) assembles them in
-- that order, each algorithm file as one branch of define(kind): Redis runs the script's whole
-- text on every call, so what the top level defines is built on every call, and an algorithm is
-- therefore defined only by a call that names it. The same files also make a Redis 7 function
-- library (Script.library), loaded once: there the prelude and every algorithm (each file in a
-- do ... end block) are defined by the function's first call, and main.lua is the function's body.
-- So no file may rely on its top level running on every call.
-- Keep the prelude's top level to what the common algorithms need: a helper of one algorithm
-- lives in its file, and the sorted-set helpers of the concurrency limit and the sliding log in
-- sorted-sets.lua, which both branches include.
--
-- Arithmetic: every value is an integer number of microseconds (or permits, or ticks of the
-- exact schedules below) held in a Lua number, which is exact below 2^53; the Java side keeps
-- every configured duration below 2^52 and now is about 2^50.6 (year 2026), so sums and
-- differences stay exact. Divisions go through
-- idiv, which corrects the one-off error a floating-point quotient may carry.

local A = {}
local NEVER = -1

local floor, format, match, find = math.floor, string.format, string.match, string.find

local function idiv(a, b)
  local q = floor(a / b)
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
  return format('%.0f', x)
end

-- A TTL in milliseconds, rounded up so that a key never expires before its state is fresh.
local function px(us)
  return max(1, idiv(us + 999, 1000))
end

-- The batch's cache of keys' states, nil outside a batch (see "Within a batch" below).
local batch_cache = nil

-- How much longer (us) a window's key outlives its window when the clock is the client's: a
-- reading taken before the window's end can reach Redis after it (queued, coalesced, a command
-- that timed out and still ran). Had the key expired, that request would find no count and open
-- its window again from zero: over the limit by every such late request. So the key stays, one
-- window at most, 11 s (the longest command timeout and then some). With Redis's own clock the
-- reading is taken as the script runs: no grace. Set by main.lua on every call (A['~clock']).
local late_grace = 0
local LATE_GRACE_MAX = 11000000

A['~clock'] = {
  set = function(client)
    late_grace = client and LATE_GRACE_MAX or 0
  end
}

-- The grace of a window of `window` us (see late_grace).
local function window_grace(window)
  return min(late_grace, window)
end

-- A string value as a number, or nil when the key is missing or holds another type (a policy
-- whose algorithm changed): such a key is treated as fresh and overwritten. Within a batch, the
-- key is read once.
local function get_number(key)
  local cache = batch_cache
  if cache then
    local e = cache[key]
    if e then
      return e.n or nil
    end
  end
  local v = redis.pcall('GET', key)
  local n = nil
  if type(v) == 'string' then
    n = tonumber(v)
  end
  if cache then
    cache[key] = {n = n or false}
  end
  return n
end

-- Sets `key` to the integer v (as s(v) writes it) for `ms` milliseconds; within a batch, at its end.
local function set_number(key, v, ms)
  local cache = batch_cache
  if cache then
    if floor(v) ~= v then
      v = tonumber(s(v)) -- what a read of the written text gives
    end
    local e = cache[key]
    if e then
      e.n, e.ms, e.dirty = v, ms, true
    else
      cache[key] = {n = v, ms = ms, dirty = true}
    end
  else
    redis.call('SET', key, s(v), 'PX', s(ms))
  end
end

-- Deletes the key if it holds a type other than t, so that a write of type t cannot fail.
local function claim(key, t)
  local actual = redis.call('TYPE', key)['ok']
  if actual ~= 'none' and actual ~= t then
    redis.call('DEL', key)
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

-- Exact schedules: the token bucket, GCRA and the policing leaky bucket keep the in-memory
-- algorithm's rational schedule (io.github.sluice.redis.internal.Schedule). Their parameters:
-- p[1] = ticks per microsecond (T, at most 1,024,000), p[2] = ticks per permit, p[3] = permits in
-- the window (burst, burst + 1, capacity), and a duration replied is ceil(ticks * p[4] / p[5])
-- (nanoseconds, or microseconds; the Java side knows which). The window, p[2] * p[3], is at most
-- 2^51 ticks. The state is one instant, stored as whole microseconds and, when it falls between
-- two, a fraction of seven decimal digits, floor(rem * 10^7 / T) for a remainder of rem ticks:
-- "1764027123456789.4285714". Seven digits tell every remainder apart (T < 10^7), and a script of
-- an older version reads the value as a number within a microsecond of the instant. Every
-- decision computes with the instant minus now, in ticks, which stays within 2^53.

-- How far (ticks) a stored instant may lead now, for clients whose clocks disagree: 2^52.
local LEAD = 4503599627370496

-- Within a batch ('b' and 'c', see main.lua) a key's state is kept in this table, in numeric
-- form, rather than read by a GET and written by a SET per request: a batch of n requests on one
-- key parses its value once, at the first touch, and formats and writes it once, at the end
-- (batch_flush), with the TTL of its last write. Every request of a batch has the batch's one
-- `now`, so the numbers give each request exactly what the stored text would (the seven-digit
-- fraction of an exact schedule reads back as the remainder it was made of). nil outside a batch;
-- main.lua resets it on every call, since a function library keeps its top level between calls.
-- Entries: key -> an exact schedule's instant {us = whole us or false (missing, another type),
-- rem = ticks, T, fresh = ticks until fresh, dirty}, a plain number {n = number or false, ms =
-- TTL (ms) of its last write, dirty}, a fixed window's hash {hash = true, s, c, ms, dirty}, or
-- an algorithm's own {write = function(key, e), dirty, ...} (concurrency's leases);
-- dirty is true (written at the end), 'del' (DEL) or nil.
-- main.lua reaches it through A['~batch'] ('~' is in no kind), since in the function library the
-- prelude's locals are setup()'s. (batch_cache is declared above get_number, which reads it.)

-- The text of an exact schedule's instant (whole us and rem ticks of 1/T us), see above.
local function instant_text(us, rem, T)
  local v = s(us)
  if rem > 0 then
    v = v .. '.' .. format('%07d', idiv(rem * 10000000, T))
  end
  return v
end

A['~batch'] = {
  begin = function()
    batch_cache = {}
  end,
  reset = function()
    batch_cache = nil
  end,
  flush = function()
    local cache = batch_cache
    batch_cache = nil
    if cache then
      for key, e in pairs(cache) do
        local dirty = e.dirty
        if dirty == 'del' then
          redis.call('DEL', key)
        elseif dirty then
          if e.write then
            e.write(key, e) -- the algorithm's own (a sorted set of leases)
          elseif e.T then
            redis.call('SET', key, instant_text(e.us, e.rem, e.T), 'PX', s(px(idiv(e.fresh + e.T - 1, e.T))))
          elseif e.hash then
            -- a fixed window's {s, c}, as its commit writes them
            claim(key, 'hash')
            redis.call('HSET', key, 's', s(e.s), 'c', s(e.c))
            redis.call('PEXPIRE', key, s(e.ms))
          else
            redis.call('SET', key, s(e.n), 'PX', s(e.ms))
          end
        end
      end
    end
  end
}

-- An exact schedule's stored text as (whole us, remainder ticks), or nil when the key is missing
-- or holds another type.
local function parse_instant(v, T)
  if type(v) ~= 'string' then
    return nil
  end
  local rem = 0
  local us, frac
  -- Most schedules are whole microseconds: a plain find spares them the pattern match.
  if find(v, '.', 1, true) then
    us, frac = match(v, '^(%d+)%.(%d%d%d%d%d%d%d)$')
  end
  if us then
    us = tonumber(us)
    rem = idiv(tonumber(frac) * T + 9999999, 10000000)
  else
    us = tonumber(v)
    if not us then
      return nil
    end
  end
  return us, rem
end

-- The instant in `key` minus now, in ticks; nil when the key is missing, holds another type, is
-- more than `behind` ticks in the past (fresh for the caller), or more than LEAD in the future
-- (a clock gone wrong: read as fresh, as the in-memory algorithms read a wrapped word).
local function read_offset(key, now, T, behind)
  local us, rem
  local cache = batch_cache
  if cache then
    local e = cache[key]
    if not e then
      us, rem = parse_instant(redis.pcall('GET', key), T)
      cache[key] = {us = us or false, rem = rem or 0, T = T, fresh = 0}
    elseif e.us then
      us, rem = e.us, e.rem
    end
  else
    us, rem = parse_instant(redis.pcall('GET', key), T)
  end
  if not us then
    return nil
  end
  local du = us - now
  if du < -(idiv(behind, T) + 1) or du > idiv(LEAD, T) + 1 then
    return nil
  end
  return du * T + rem
end

-- Stores the instant now + d ticks, the key expiring once `fresh` ticks have passed.
local function write_offset(key, now, T, d, fresh)
  local q = idiv(d, T)
  local rem = d - q * T
  local cache = batch_cache
  if cache then
    if floor(rem) ~= rem then
      -- (only from a stored text no Sluice wrote) what a read of the written text gives
      rem = idiv(idiv(rem * 10000000, T) * T + 9999999, 10000000)
    end
    local e = cache[key]
    if e then
      e.us, e.rem, e.T, e.fresh, e.dirty = now + q, rem, T, fresh, true
    else
      cache[key] = {us = now + q, rem = rem, T = T, fresh = fresh, dirty = true}
    end
  else
    redis.call('SET', key, instant_text(now + q, rem, T), 'PX', s(px(idiv(fresh + T - 1, T))))
  end
end

-- Deletes `key` (within a batch, at its end).
local function delete_key(key)
  local cache = batch_cache
  if cache then
    local e = cache[key] or {}
    e.us, e.n, e.dirty = false, false, 'del'
    cache[key] = e
  else
    redis.call('DEL', key)
  end
end

-- A duration of `ticks` (>= 0) in the reply's unit, rounded up as the in-memory algorithm rounds.
local function dur(ticks, p)
  return idiv(ticks * p[4] + p[5] - 1, p[5])
end

-- The commit of the exact-schedule algorithms: the decision's new instant (r[6], ticks from
-- now), fresh again after r.fresh ticks.
local function commit_offset(key, now, cost, p, r)
  write_offset(key, now, p[1], r[6], r.fresh)
end

-- What a read of the text write_offset stores for d gives back (d itself, unless d is not a whole
-- number of ticks, which only a stored text no Sluice wrote can cause).
local function settled(d, T)
  if floor(d) == d then
    return d
  end
  local q = idiv(d, T)
  local rem = d - q * T
  return q * T + idiv(idiv(rem * 10000000, T) * T + 9999999, 10000000)
end

-- An exact-schedule algorithm from: lowest(p), the state of a fresh key (ticks from now, <= 0: a
-- stored instant further back reads as it); core(d, cost, p), the decision on the state d, which
-- returns admitted (1 or 0), remaining, reset and retry-after (0 for an admission), then for an
-- admission the new state and the ticks until it is fresh again; and its refund. decide and commit
-- are the protocol of every algorithm (main.lua). step decides one request and, if it is admitted
-- at a cost, commits it, returning the six values of its reply as multiple values (no table): the
-- path of a request alone on its policy. run decides a compact batch ('c'): the costs argv[from..],
-- each request's six values handed to emit; the state is read once, kept in a local from request
-- to request, and written once. That is exactly what a read after each write would give: a state
-- written is never older than the fresh state nor LEAD ahead (read_offset's bounds), so it reads
-- back as written (settled).
local function offset_algorithm(lowest, core, release)
  local function load(key, now, p)
    local lo = lowest(p)
    local d = read_offset(key, now, p[1], -lo)
    if not d or d < lo then
      return lo
    end
    return d
  end
  return {
    decide = function(key, now, cost, p)
      local ok, remaining, reset, retry, nxt, fresh = core(load(key, now, p), cost, p)
      if ok == 0 then
        return {0, remaining, reset, retry, 0}
      end
      return {1, remaining, reset, 0, 0, nxt, fresh = fresh, receipt = now}
    end,
    commit = commit_offset,
    step = function(key, now, cost, p)
      local ok, remaining, reset, retry, nxt, fresh = core(load(key, now, p), cost, p)
      if ok == 0 then
        return 0, remaining, reset, retry, 0, 0
      end
      if cost > 0 then
        write_offset(key, now, p[1], nxt, fresh)
      end
      return 1, remaining, reset, 0, 0, now
    end,
    run = function(key, now, p, argv, from, emit)
      local T = p[1]
      local d = load(key, now, p)
      local written = nil
      for j = from, #argv do
        local cost = tonumber(argv[j])
        local ok, remaining, reset, retry, nxt, fresh = core(d, cost, p)
        if ok == 0 then
          emit(0, remaining, reset, retry, 0, 0)
        else
          if cost > 0 then
            d, written = settled(nxt, T), fresh
          end
          emit(1, remaining, reset, 0, 0, now)
        end
      end
      if written then
        write_offset(key, now, T, d, written)
      end
    end,
    release = release
  }
end

-- The refund of the exact-schedule algorithms, as io.github.sluice.algorithm.TimeWord: an
-- admission at reading t (us) of `took` ticks (cost times the interval) moves the stored instant
-- back by took - (now - t), never below `keep` ticks before now (the fresh state), and not at all
-- once that is not positive: what time refilled since t may already have been given back and
-- taken by later requests. The script is atomic and reads its clock after every admission it can
-- see, so now bounds their readings (with a client clock, as far as the instances' clocks agree).
local function offset_refund(key, now, p, took, t, keep)
  local T = p[1]
  if not t or now < t or now - t > idiv(took, T) then
    return
  end
  local back = took - (now - t) * T
  if back <= 0 then
    return
  end
  local d = read_offset(key, now, T, keep)
  if not d or d <= -keep then
    return
  end
  local target = max(d - back, -keep)
  if target <= -keep then
    delete_key(key)
  else
    write_offset(key, now, T, target, target + keep)
  end
end
