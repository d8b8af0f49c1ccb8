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
    local r = {1, idiv(depth - after, interval), after, 0, 0, now + after}
    r.receipt = now
    return r
  end,
  commit = commit_instant,
  -- A refund: the receipt is the admission's clock reading (see instant_refund).
  release = function(key, now, cost, p)
    local interval, capacity = p[1], p[2]
    instant_refund(key, now, min(cost, capacity) * interval, receipt_of(p), now)
  end
}

