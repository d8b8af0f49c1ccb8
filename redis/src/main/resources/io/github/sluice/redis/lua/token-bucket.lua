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
    return {1, idiv(now - nxt, interval), nxt - full, 0, 0, nxt}
  end,
  commit = function(key, now, cost, p, r)
    redis.call('SET', key, s(r[6]), 'PX', s(px(r[3])))
  end,
  release = function(key, now, cost, p)
    local interval, burst = p[1], p[2]
    local full = now - burst * interval
    local base = get_number(key)
    if not base or base <= full then
      return
    end
    local nxt = max(base - min(cost, burst) * interval, full)
    if nxt <= full then
      redis.call('DEL', key)
    else
      redis.call('SET', key, s(nxt), 'PX', s(px(nxt - full)))
    end
  end
}

