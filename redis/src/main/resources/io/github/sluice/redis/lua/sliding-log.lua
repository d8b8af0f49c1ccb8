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
    return {1, limit - used - cost, stamp - boundary, 0, 0, stamp}
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
  release = function(key, now, cost, p)
    local limit, window = p[1], p[2]
    -- Un-log the newest permits still in the window.
    local newest = redis.pcall('ZREVRANGEBYSCORE', key, '+inf', '(' .. s(now - window),
      'LIMIT', 0, min(cost, limit))
    if type(newest) == 'table' and #newest > 0 and not newest['err'] then
      for i = 1, #newest, 1000 do
        redis.call('ZREM', key, unpack(newest, i, min(#newest, i + 999)))
      end
    end
  end
}

