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

-- Within a batch (see batch_cache in the prelude), the leases held are counted once, each
-- admission adds its cost to the count, and the leases are written at the end: claim,
-- ZREMRANGEBYSCORE, ZADD of every admission's members, PEXPIRE, as the last admission's own
-- commit would have left the key. Exact while a lease outlives the batch's instant (a timeout > 0:
-- each admission's members count, and no admission's trim removes another's) and lease ids are
-- unique (the store's are), so that no member of an admission is already in the set.
local function leases_write(key, e)
  claim(key, 'zset')
  redis.call('ZREMRANGEBYSCORE', key, '-inf', s(e.now))
  local adds = e.adds
  for i = 1, #adds, 4 do
    zadd_members(redis.call, key, nil, adds[i], adds[i + 1], adds[i + 2], adds[i + 3])
  end
  leases_expire(key, e.now)
end

local function leases_held(key, now, p)
  local cache = batch_cache
  if not cache or p[2] <= 0 then
    return zcount_after(key, now)
  end
  local e = cache[key]
  if not e then
    e = {held = zcount_after(key, now), adds = {}, now = now, write = leases_write}
    cache[key] = e
  end
  return e.held
end

A['concurrency'] = {
  decide = function(key, now, cost, p)
    local limit, retry = p[1], p[5]
    local held = leases_held(key, now, p)
    if cost > limit - held then
      if cost > limit then
        retry = NEVER
      end
      return {0, limit - held, 0, retry, 0}
    end
    return {1, limit - held - cost, 0, 0, 0}
  end,
  commit = function(key, now, cost, p, r)
    local e = batch_cache and batch_cache[key]
    if e and e.write == leases_write then
      local adds = e.adds
      local k = #adds
      adds[k + 1], adds[k + 2], adds[k + 3], adds[k + 4] = s(now + p[2]), p[3], p[4], cost
      e.held, e.dirty = e.held + cost, true
      return
    end
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

