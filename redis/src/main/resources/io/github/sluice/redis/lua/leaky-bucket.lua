-- leaky-bucket (policing): the state is the instant the bucket would be empty, as
-- io.github.sluice.algorithm.LeakyBucket keeps it, on its exact schedule (see "Exact schedules"
-- in the prelude); the water level is what is left until then, in ticks.
-- p[1] = ticks per us, p[2] = leak interval (ticks per permit), p[3] = capacity, p[4], p[5]: the
-- reply's unit.
local function lb_free(depth, level, step)
  local room = depth - level
  if room > 0 then
    return idiv(room, step)
  end
  return 0
end

-- The decision, as offset_algorithm (prelude) takes it.
local function lb_empty()
  return 0
end

local function lb_decide(level, cost, p)
  local step, capacity = p[2], p[3]
  local depth = step * capacity
  if cost > capacity then
    return 0, lb_free(depth, level, step), dur(level, p), NEVER
  end
  local after = level + cost * step
  if after > depth then
    return 0, lb_free(depth, level, step), dur(level, p), dur(after - depth, p)
  end
  return 1, lb_free(depth, after, step), dur(after, p), 0, after, after
end

-- A refund: the receipt is the admission's clock reading (see offset_refund).
A['leaky-bucket'] = offset_algorithm(lb_empty, lb_decide, function(key, now, cost, p)
  offset_refund(key, now, p, min(cost, p[3]) * p[2], receipt_of(p), 0)
end)
