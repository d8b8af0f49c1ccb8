-- concurrency: a sorted set of leases, one member per permit ({lease id}#{index}) scored by its
-- expiry (us). A lease not renewed expires, so the permits of a crashed instance come back after
-- the lease timeout; running requests have their leases renewed by their instance. Decisions as
-- io.github.sluice.algorithm.Concurrency: reset 0, and a denial's retry-after is a fixed second.
-- p[1] = max in flight, p[2] = lease timeout (us), p[3] = the lease id, p[4] = the index of the
-- lease's first member, p[5] = retry-after of a denial (us).
-- Sets the key's TTL to its latest lease expiry: the time until no permit is held.
local function leases_expire(key, now)
  local last = zmax_score(key)
  if last then
    redis.call('PEXPIRE', key, s(px(last - now)))
  end
end

A['concurrency'] = {
  decide = function(key, now, cost, p)
    local limit, retry = p[1], p[5]
    local held = zcount_after(key, now)
    if cost > limit - held then
      if cost > limit then
        retry = NEVER
      end
      return {0, limit - held, 0, retry, 0}
    end
    return {1, limit - held - cost, 0, 0, 0}
  end,
  commit = function(key, now, cost, p, r)
    claim(key, 'zset')
    redis.call('ZREMRANGEBYSCORE', key, '-inf', s(now))
    zadd_members(redis.call, key, nil, s(now + p[2]), p[3], p[4], cost)
    leases_expire(key, now)
  end,
  release = function(key, now, cost, p)
    zrem_members(redis.pcall, key, p[3], p[4], cost)
  end,
  renew = function(key, now, cost, p)
    -- XX: a lease that already expired stays expired (its permit may have been taken since).
    zadd_members(redis.pcall, key, 'XX', s(now + p[2]), p[3], p[4], cost)
    leases_expire(key, now)
  end
}

