-- sliding-log: the exact log, as io.github.sluice.algorithm.SlidingLog and the sorted-set log of
-- the seeds: one member per permit (a unique request id and its index), scored by its timestamp
-- (us); a permit is in the window while its timestamp is > now - window.
-- p[1] = limit, p[2] = window (us), p[3] = the request's id, p[4] = the index of its first permit.
A['sliding-log'] = {
  decide = function(key, now, cost, p)
    local limit, window = p[1], p[2]
    local boundary = now - window
    local used = zcount_after(key, boundary)
    local reset = 0
    if used > 0 then
      reset = zmax_score(key) - boundary
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
    local stamp = max(now, zmax_score(key) or now)
    return {1, limit - used - cost, stamp - boundary, 0, 0, stamp, receipt = stamp}
  end,
  commit = function(key, now, cost, p, r)
    claim(key, 'zset')
    redis.call('ZREMRANGEBYSCORE', key, '-inf', s(now - p[2]))
    zadd_members(redis.call, key, nil, s(r[6]), p[3], p[4], cost)
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
    if type(own) == 'table' and not own['err'] then
      zrem_list(redis.call, key, own)
    end
  end
}
