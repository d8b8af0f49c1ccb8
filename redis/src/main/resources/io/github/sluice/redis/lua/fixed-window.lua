-- fixed-window: a hash {s = window start (us), c = count}, as
-- io.github.sluice.algorithm.FixedWindow. p[1] = limit, p[2] = window (us), p[3] = 1 for windows
-- aligned to the epoch, 0 for windows opened by a key's first request (starting at that
-- request's microsecond).
local function fw_state(key, now, p)
  local window, epoch = p[2], p[3] == 1
  local start, count = hget_numbers(key, 's', 'c')
  local open = false
  if start and count and count > 0 then
    if epoch then
      open = start >= idiv(now, window) * window
    else
      open = now < start + window
    end
  end
  if not open then
    count = 0
    if epoch then
      start = idiv(now, window) * window
    else
      start = now
    end
  end
  return open, start, count
end

A['fixed-window'] = {
  decide = function(key, now, cost, p)
    local limit, window = p[1], p[2]
    local open, start, count = fw_state(key, now, p)
    local fin = start + window
    if cost > limit then
      local reset = 0
      if count > 0 then
        reset = fin - now
      end
      return {0, limit - count, reset, NEVER, 0}
    end
    if count + cost > limit then
      return {0, limit - count, fin - now, fin - now, 0}
    end
    local reset = 0
    if count + cost > 0 then
      reset = fin - now
    end
    return {1, limit - count - cost, reset, 0, 0, start, count + cost}
  end,
  commit = function(key, now, cost, p, r)
    claim(key, 'hash')
    redis.call('HSET', key, 's', s(r[6]), 'c', s(r[7]))
    redis.call('PEXPIRE', key, s(px(r[3])))
  end,
  release = function(key, now, cost, p)
    local open, start, count = fw_state(key, now, p)
    if open then
      -- HSET keeps the key's TTL: the window still ends when it ended.
      redis.call('HSET', key, 'c', s(max(0, count - cost)))
    end
  end
}

