-- token-bucket: the state is "base", the instant at which the bucket would hold zero tokens,
-- exactly as io.github.sluice.algorithm.TokenBucket keeps it in memory, on its exact schedule
-- (see "Exact schedules" in the prelude). Below, instants are ticks from now.
-- p[1] = ticks per us, p[2] = ticks per token, p[3] = burst, p[4], p[5]: the reply's unit.
local function tb_whole(credit, step)
  if credit <= 0 then
    return 0
  end
  return idiv(credit, step)
end

-- The decision, as offset_algorithm (prelude) takes it.
local function tb_lowest(p)
  return -(p[3] * p[2])
end

local function tb_decide(eff, cost, p)
  local step, burst = p[2], p[3]
  local window = burst * step
  if cost > burst then
    return 0, tb_whole(-eff, step), dur(eff + window, p), NEVER
  end
  local nxt = eff + cost * step
  if nxt > 0 then
    return 0, tb_whole(-eff, step), dur(eff + window, p), dur(nxt, p)
  end
  return 1, tb_whole(-nxt, step), dur(nxt + window, p), 0, nxt, nxt + window
end

-- A refund: the receipt is the admission's clock reading (see offset_refund).
A['token-bucket'] = offset_algorithm(tb_lowest, tb_decide, function(key, now, cost, p)
  local step, burst = p[2], p[3]
  offset_refund(key, now, p, min(cost, burst) * step, receipt_of(p), burst * step)
end)
