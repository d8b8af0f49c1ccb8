-- fixed-window: a hash {s = window start (us), c = count}, as
-- io.github.sluice.algorithm.FixedWindow. p[1] = limit, p[2] = window (us), p[3] = 1 for windows
-- aligned to the epoch, 0 for windows opened by a key's first request (starting at that
-- request's microsecond and covering the readings up to a window later, that one included: the
-- whole microseconds a window needs so as never to end early, as the in-memory cells).
--
-- The stored window never moves backwards: a reading before its start (a client clock that lags,
-- or a request that waited) is refused, because the earlier window's count is gone; a count of
-- zero (refunds) still marks the window. Returns: stale, start, count, fin (the window's end).
-- A hash field as a number, or nil (missing key, missing field, or another type).
local function hget_numbers(key, f1, f2)
  local v = redis.pcall('HMGET', key, f1, f2)
  if type(v) ~= 'table' or v['err'] then
    return nil, nil
  end
  return tonumber(v[1]), tonumber(v[2])
end

-- The stored window (start, count), read once per batch (see batch_cache in the prelude).
local function fw_read(key)
  local cache = batch_cache
  if cache then
    local e = cache[key]
    if not e then
      e = {hash = true}
      e.s, e.c = hget_numbers(key, 's', 'c')
      cache[key] = e
    end
    return e.s, e.c
  end
  return hget_numbers(key, 's', 'c')
end

-- A hash field's number as a read of s(v), the text written, gives it.
local function fw_written(v)
  if floor(v) ~= v then
    return tonumber(s(v))
  end
  return v
end

local function fw_state(key, now, p)
  local window, epoch = p[2], p[3] == 1
  local span = window
  local mine = now
  if epoch then
    mine = idiv(now, window) * window
  else
    span = window + 1
  end
  local start, count = fw_read(key)
  if start and count then
    if mine < start then
      return true, start, count, start + span
    end
    if count > 0 and now < start + span then
      return false, start, count, start + span
    end
  end
  return false, mine, 0, mine + span
end

A['fixed-window'] = {
  decide = function(key, now, cost, p)
    local limit, window = p[1], p[2]
    local stale, start, count, fin = fw_state(key, now, p)
    local reset = 0
    if count > 0 then
      reset = min(fin - now, window)
    end
    if cost > limit then
      return {0, limit - count, reset, NEVER, 0}
    end
    if stale and cost > 0 then
      local retry = fin - now
      if count + cost <= limit then
        retry = start - now
      end
      return {0, limit - count, reset, retry, 0}
    end
    if count + cost > limit then
      return {0, limit - count, reset, fin - now, 0}
    end
    if count + cost > 0 then
      reset = min(fin - now, window)
    end
    return {1, limit - count - cost, reset, 0, 0, start, count + cost, fin - now + window_grace(window),
      receipt = start}
  end,
  commit = function(key, now, cost, p, r)
    local cache = batch_cache
    if cache then
      -- within a batch: written once, at its end (batch flush)
      local e = cache[key] or {hash = true}
      e.s, e.c, e.ms, e.dirty = fw_written(r[6]), fw_written(r[7]), px(r[8]), true
      cache[key] = e
      return
    end
    claim(key, 'hash')
    redis.call('HSET', key, 's', s(r[6]), 'c', s(r[7]))
    redis.call('PEXPIRE', key, s(px(r[8])))
  end,
  -- A refund: the receipt is the start of the window the admission was counted in. Dropped once
  -- the key has moved to another window. HSET keeps the key's TTL: the window ends when it ended.
  release = function(key, now, cost, p)
    local start, count = hget_numbers(key, 's', 'c')
    local counted = receipt_of(p)
    if counted and start == counted and count and count > 0 then
      redis.call('HSET', key, 'c', s(max(0, count - cost)))
    end
  end
}

-- fixed-window-calendar: a window of a calendar (day, week, month, year in a time zone), as
-- io.github.sluice.algorithm.FixedWindow with a CalendarPeriod. The zone's rules live in Java: a
-- call sends p[1] = limit and p[2] .. p[5] = the bounds (us) b0 < b1 < b2 < b3 of the windows
-- before, holding and after the caller's local reading, and the script takes the window of the
-- three that holds its own clock (Redis TIME, or the client clock). So instances whose clocks
-- disagree by less than a window still count in one window, the one Redis's clock is in: the
-- hash {s = window start, c = count, e = window end} is keyed by the window's start. A clock
-- outside all three (more than a day off the caller's) is an error: the call fails and the
-- store's failure policy decides, rather than a count in a window no other instance reads.
local function cw_pick(now, p)
  if now >= p[3] and now < p[4] then
    return p[3], p[4]
  elseif now >= p[2] and now < p[3] then
    return p[2], p[3]
  elseif now >= p[4] and now < p[5] then
    return p[4], p[5]
  end
  error('sluice: the calendar window bounds sent do not hold the script clock ' .. s(now)
    .. ' (from ' .. s(p[2]) .. ' to ' .. s(p[5]) .. '): the clocks of Redis and this instance differ by'
    .. ' more than a window')
end

A['fixed-window-calendar'] = {
  decide = function(key, now, cost, p)
    local limit = p[1]
    local mine, mfin = cw_pick(now, p)
    local start, count, fin = mine, 0, mfin
    local stale = false
    local v = redis.pcall('HMGET', key, 's', 'c', 'e')
    if type(v) == 'table' and not v['err'] then
      local s0, c0 = tonumber(v[1]), tonumber(v[2])
      if s0 and c0 then
        if mine < s0 then
          -- a later window is stored (a clock ahead of this one opened it): refused until it starts
          stale, start, count, fin = true, s0, c0, tonumber(v[3]) or s0
        elseif s0 == mine and c0 > 0 then
          count = c0
        end
      end
    end
    local reset = 0
    if count > 0 then
      reset = fin - now
    end
    if cost > limit then
      return {0, limit - count, reset, NEVER, 0}
    end
    if stale and cost > 0 then
      local retry = fin - now
      if count + cost <= limit then
        retry = start - now
      end
      return {0, limit - count, reset, retry, 0}
    end
    if count + cost > limit then
      return {0, limit - count, reset, fin - now, 0}
    end
    if count + cost > 0 then
      reset = fin - now
    end
    return {1, limit - count - cost, reset, 0, 0, start, count + cost, fin, receipt = start}
  end,
  commit = function(key, now, cost, p, r)
    claim(key, 'hash')
    redis.call('HSET', key, 's', s(r[6]), 'c', s(r[7]), 'e', s(r[8]))
    redis.call('PEXPIRE', key, s(px(r[8] - now + window_grace(r[8] - r[6]))))
  end,
  release = A['fixed-window'].release
}
