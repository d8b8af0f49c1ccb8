-- sliding-log: the exact log, as io.github.sluice.algorithm.SlidingLog and the sorted-set log of
-- the seeds: one member per permit (a unique request id and its index), scored by its timestamp
-- (us); a permit is in the window while its timestamp is > now - window.
-- p[1] = limit, p[2] = window (us), p[3] = the request's id, p[4] = the index of its first permit.
local function log_newest(key)
  local top = redis.pcall('ZREVRANGE', key, 0, 0, 'WITHSCORES')
  if type(top) == 'table' and top[2] then
    return tonumber(top[2])
  end
  return nil
end

A['sliding-log'] = {
  decide = function(key, now, cost, p)
    local limit, window = p[1], p[2]
    local boundary = now - window
    local used = redis.pcall('ZCOUNT', key, '(' .. s(boundary), '+inf')
    if type(used) ~= 'number' then
      used = 0
    end
    local reset = 0
    if used > 0 then
      reset = log_newest(key) - boundary
    end
    if cost > limit then
      return {0, limit - used, reset, NEVER, 0}
    end
    if used + cost > limit then
      -- The permit that must leave the window first: the (limit - cost + 1)-th newest.
      local e = redis.call('ZREVRANGE', key, limit - cost, limit - cost, 'WITHSCORES')
      return {0, limit - used, reset, tonumber(e[2]) - boundary, 0}
    end
    if cost == 0 then
      return {1, limit - used, reset, 0, 0}
    end
    -- Timestamps never go backwards in the log, even if a clock does.
    local stamp = max(now, log_newest(key) or now)
    local r = {1, limit - used - cost, stamp - boundary, 0, 0, stamp}
    r.receipt = stamp
    return r
  end,
  commit = function(key, now, cost, p, r)
    claim(key, 'zset')
    redis.call('ZREMRANGEBYSCORE', key, '-inf', s(now - p[2]))
    local stamp = s(r[6])
    local args = {}
    for j = p[4], p[4] + cost - 1 do
      args[#args + 1] = stamp
      args[#args + 1] = p[3] .. '#' .. s(j)
      if #args >= 1000 then
        redis.call('ZADD', key, unpack(args))
        args = {}
      end
    end
    if #args > 0 then
      redis.call('ZADD', key, unpack(args))
    end
    redis.call('PEXPIRE', key, s(px(r[3])))
  end,
  -- A refund: the receipt is the timestamp the admission logged. Up to `cost` permits carrying
  -- exactly that timestamp are un-logged (the admission's own, or another's of the same instant:
  -- the same log), never newer ones, which would leave the refunded one behind to leave the
  -- window too early. Permits already trimmed are not refunded.
  release = function(key, now, cost, p)
    local limit = p[1]
    local stamp = receipt_of(p)
    if not stamp then
      return
    end
    local own = redis.pcall('ZRANGEBYSCORE', key, s(stamp), s(stamp), 'LIMIT', 0, min(cost, limit))
    if type(own) == 'table' and #own > 0 and not own['err'] then
      for i = 1, #own, 1000 do
        redis.call('ZREM', key, unpack(own, i, min(#own, i + 999)))
      end
    end
  end
}
