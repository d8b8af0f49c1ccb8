-- concurrency: a sorted set of leases, one member per permit ({lease id}#{index}) scored by its
-- expiry (us). A lease not renewed expires, so the permits of a crashed instance come back after
-- the lease timeout; running requests have their leases renewed by their instance. Decisions as
-- io.github.sluice.algorithm.Concurrency: reset 0, and a denial's retry-after is a fixed second.
-- p[1] = max in flight, p[2] = lease timeout (us), p[3] = the lease id, p[4] = the index of the
-- lease's first member, p[5] = retry-after of a denial (us).
local function leases_live(key, now)
  local n = redis.pcall('ZCOUNT', key, '(' .. s(now), '+inf')
  if type(n) ~= 'number' then
    return 0
  end
  return n
end

-- Sets the key's TTL to its latest lease expiry: the time until no permit is held.
local function leases_expire(key, now)
  local last = redis.call('ZREVRANGE', key, 0, 0, 'WITHSCORES')
  if last[2] then
    redis.call('PEXPIRE', key, s(px(tonumber(last[2]) - now)))
  end
end

A['concurrency'] = {
  decide = function(key, now, cost, p)
    local limit, retry = p[1], p[5]
    local held = leases_live(key, now)
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
    local expiry = s(now + p[2])
    local args = {}
    for j = p[4], p[4] + cost - 1 do
      args[#args + 1] = expiry
      args[#args + 1] = p[3] .. '#' .. s(j)
      if #args >= 1000 then
        redis.call('ZADD', key, unpack(args))
        args = {}
      end
    end
    if #args > 0 then
      redis.call('ZADD', key, unpack(args))
    end
    leases_expire(key, now)
  end,
  release = function(key, now, cost, p)
    local members = {}
    for j = p[4], p[4] + cost - 1 do
      members[#members + 1] = p[3] .. '#' .. s(j)
      if #members >= 1000 then
        redis.pcall('ZREM', key, unpack(members))
        members = {}
      end
    end
    if #members > 0 then
      redis.pcall('ZREM', key, unpack(members))
    end
  end,
  renew = function(key, now, cost, p)
    -- XX: a lease that already expired stays expired (its permit may have been taken since).
    local expiry = s(now + p[2])
    local args = {'XX'}
    for j = p[4], p[4] + cost - 1 do
      args[#args + 1] = expiry
      args[#args + 1] = p[3] .. '#' .. s(j)
    end
    if redis.pcall('ZADD', key, unpack(args)) ~= nil then
      local ok = redis.pcall('TYPE', key)
      if type(ok) == 'table' and ok['ok'] == 'zset' then
        leases_expire(key, now)
      end
    end
  end
}

