-- token-bucket: the state is "base", the instant (us) at which the bucket would hold zero
-- tokens, exactly as io.github.sluice.algorithm.TokenBucket keeps it in memory.
-- p[1] = interval between tokens (us), p[2] = burst.
A['token-bucket'] = {
  decide = function(key, now, cost, p)
    local interval, burst = p[1], p[2]
    local full = now - burst * interval
    local eff = full
    local base = get_number(key)
    if base and base > full then
      eff = base
    end
    if cost > burst then
      return {0, idiv(max(0, now - eff), interval), eff - full, NEVER, 0}
    end
    local nxt = eff + cost * interval
    if nxt > now then
      return {0, idiv(max(0, now - eff), interval), eff - full, nxt - now, 0}
    end
    local r = {1, idiv(now - nxt, interval), nxt - full, 0, 0, nxt}
    r.receipt = now
    return r
  end,
  commit = commit_instant,
  -- A refund: the receipt is the admission's clock reading (see instant_refund).
  release = function(key, now, cost, p)
    local interval, burst = p[1], p[2]
    instant_refund(key, now, min(cost, burst) * interval, receipt_of(p), now - burst * interval)
  end
}

