-- shaping: uber-go/ratelimit spacing, as io.github.sluice.algorithm.ShapingLeakyBucket: the state
-- is next, the earliest slot of the next request (us). A request waits for its slot (SHAPED, with
-- the delay in the reply), or is refused if it would wait longer than the maximum delay.
-- p[1] = interval (us), p[2] = slack * interval (us), p[3] = max delay (us), p[4] = limit (the
-- burst announced in headers), p[5] = the largest cost that is not refused forever.
local function shaping_remaining(now, slot, p)
  local interval, slack, max_delay, burst = p[1], p[2], p[3], p[4]
  local spare = now + max_delay - max(slot, now - slack)
  if spare < 0 then
    return 0
  end
  return min(burst, idiv(spare, interval) + 1)
end

A['shaping'] = {
  decide = function(key, now, cost, p)
    local interval, slack, max_delay, max_cost = p[1], p[2], p[3], p[5]
    local floor = now - slack
    local slot = max(get_number(key) or floor, floor)
    local delay = max(0, slot - now)
    if cost > max_cost then
      return {0, shaping_remaining(now, slot, p), slot - now + slack, NEVER, 0}
    end
    if cost == 0 then
      return {1, shaping_remaining(now, slot, p), slot - floor, 0, 0}
    end
    if delay > max_delay then
      return {0, shaping_remaining(now, slot, p), slot - now + slack, delay - max_delay, 0}
    end
    local after = slot + cost * interval
    local r = {1, shaping_remaining(now, after, p), after - floor, 0, delay, after}
    r.receipt = after
    return r
  end,
  commit = commit_instant,
  -- A refund: the receipt is the `next` the admission published. Its slots are given back only
  -- while they are still the last ones issued; once a later request took a slot behind them, it
  -- was told its delay, and moving `next` back would schedule another request into that slot.
  release = function(key, now, cost, p)
    local interval, slack, max_cost = p[1], p[2], p[5]
    local published = receipt_of(p)
    local nxt = get_number(key)
    if not published or not nxt or nxt ~= published then
      return
    end
    local floor = now - slack
    set_instant(key, nxt - min(cost, max_cost) * interval, floor)
  end
}

