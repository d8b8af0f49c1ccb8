-- leaky-bucket (policing): the state is the instant the bucket would be empty (us), as
-- io.github.sluice.algorithm.LeakyBucket keeps it; the water level is what is left until then.
-- p[1] = leak interval (us per permit), p[2] = capacity.
A['leaky-bucket'] = {
  decide = function(key, now, cost, p)
    local interval, capacity = p[1], p[2]
    local depth = interval * capacity
    local empty_at = get_number(key) or now
    local level = max(empty_at, now) - now
    if cost > capacity then
      return {0, idiv(depth - level, interval), level, NEVER, 0}
    end
    local after = level + cost * interval
    if after > depth then
      return {0, idiv(depth - level, interval), level, after - depth, 0}
    end
    return {1, idiv(depth - after, interval), after, 0, 0, now + after}
  end,
  commit = function(key, now, cost, p, r)
    redis.call('SET', key, s(r[6]), 'PX', s(px(r[3])))
  end,
  release = function(key, now, cost, p)
    local interval, capacity = p[1], p[2]
    local empty_at = get_number(key)
    if not empty_at or empty_at <= now then
      return
    end
    local nxt = max(empty_at - min(cost, capacity) * interval, now)
    if nxt <= now then
      redis.call('DEL', key)
    else
      redis.call('SET', key, s(nxt), 'PX', s(px(nxt - now)))
    end
  end
}

