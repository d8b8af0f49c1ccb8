-- gcra: the state is the theoretical arrival time (TAT), as in redis-cell and in
-- io.github.sluice.algorithm.Gcra, on its exact schedule (see "Exact schedules" in the prelude).
-- Below, instants are ticks from now. p[1] = ticks per us, p[2] = emission interval (ticks),
-- p[3] = limit (burst + 1), p[4], p[5]: the reply's unit.
local function gcra_remaining(tolerance, emission, ttl)
  local nxt = tolerance - ttl
  if nxt > 0 then
    return idiv(nxt, emission)
  end
  return 0
end

-- The decision, as offset_algorithm (prelude) takes it.
local function zero()
  return 0
end

local function gcra_decide(ttl, cost, p)
  local emission, limit = p[2], p[3]
  local tolerance = emission * limit
  if cost > limit then
    return 0, gcra_remaining(tolerance, emission, ttl), dur(ttl, p), NEVER
  end
  local new_tat = ttl + cost * emission
  local early = new_tat - tolerance
  if early > 0 then
    return 0, gcra_remaining(tolerance, emission, ttl), dur(ttl, p), dur(early, p)
  end
  return 1, gcra_remaining(tolerance, emission, new_tat), dur(new_tat, p), 0, new_tat, new_tat
end

-- A refund: the receipt is the admission's clock reading (see offset_refund).
A['gcra'] = offset_algorithm(zero, gcra_decide, function(key, now, cost, p)
  offset_refund(key, now, p, min(cost, p[3]) * p[2], receipt_of(p), 0)
end)
