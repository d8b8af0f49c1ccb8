-- gcra: the state is the theoretical arrival time (TAT, us), as in redis-cell and in
-- io.github.sluice.algorithm.Gcra. p[1] = emission interval (us), p[2] = limit (burst + 1).
local function gcra_remaining(tolerance, emission, ttl)
  local nxt = tolerance - ttl
  if nxt > 0 then
    return idiv(nxt, emission)
  end
  return 0
end

A['gcra'] = {
  decide = function(key, now, cost, p)
    local emission, limit = p[1], p[2]
    local tolerance = emission * limit
    local tat = get_number(key)
    if not tat or tat < now then
      tat = now
    end
    if cost > limit then
      return {0, gcra_remaining(tolerance, emission, tat - now), tat - now, NEVER, 0}
    end
    local new_tat = tat + cost * emission
    local allow_at = new_tat - tolerance
    if now < allow_at then
      return {0, gcra_remaining(tolerance, emission, tat - now), tat - now, allow_at - now, 0}
    end
    local r = {1, gcra_remaining(tolerance, emission, new_tat - now), new_tat - now, 0, 0, new_tat}
    r.receipt = now
    return r
  end,
  commit = commit_instant,
  -- A refund: the receipt is the admission's clock reading (see instant_refund).
  release = function(key, now, cost, p)
    local emission, limit = p[1], p[2]
    instant_refund(key, now, min(cost, limit) * emission, receipt_of(p), now)
  end
}

