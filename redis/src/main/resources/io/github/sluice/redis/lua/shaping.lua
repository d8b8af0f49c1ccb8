-- shaping: uber-go/ratelimit spacing, as io.github.sluice.algorithm.ShapingLeakyBucket: the state
-- is next, the earliest slot of the next request (us). A request waits for its slot (SHAPED, with
-- the delay in the reply), or is refused if it would wait longer than the maximum delay.
-- p[1] = interval (us), p[2] = slack * interval (us), p[3] = max delay (us), p[4] = limit (the
-- burst announced in headers), p[5] = the largest cost that is not refused forever.
-- Two entries: 'shaping' starts a key with no slack banked (start=empty, uber-go's New: a missing
-- key's first request is given now); 'shaping-earned' starts it with its slack earned (a missing
-- key is an idle one). An empty-start key that has idled holds slack a missing one lacks, so it
-- is kept one slack window longer than its slack takes to earn; when it expires all the same, it
-- comes back as a new key (no slack): stricter, never looser.
-- Lowers an instant key (shaping) to `instant`, its state being fresh from `floor` on: the key is
-- deleted when nothing is left above the floor (a missing key reads as fresh), and otherwise
-- expires when the floor catches up with it.
local function set_instant(key, instant, floor)
  if instant <= floor then
    redis.call('DEL', key)
  else
    redis.call('SET', key, s(instant), 'PX', s(px(instant - floor)))
  end
end

local function shaping_remaining(now, slot, p)
  local interval, slack, max_delay, burst = p[1], p[2], p[3], p[4]
  local spare = now + max_delay - max(slot, now - slack)
  if spare < 0 then
    return 0
  end
  return min(burst, idiv(spare, interval) + 1)
end

local function shaping(earned)
  -- How far back of now the key may expire: when its state is fresh (earned start), or one slack
  -- window after that (empty start, see above).
  local function expiry_floor(now, slack)
    if earned or slack == 0 then
      return now - slack
    end
    return now - 2 * slack
  end
  return {
    decide = function(key, now, cost, p)
      local interval, slack, max_delay, max_cost = p[1], p[2], p[3], p[5]
      local floor = now - slack
      local nxt = get_number(key)
      local slot, reset
      if nxt or earned then
        slot = max(nxt or floor, floor)
        reset = slot - floor
      else
        -- A key that has taken nothing: uber-go's first Take is given now, with no slack banked,
        -- and it is as restored as it gets.
        slot = now
        reset = 0
      end
      local delay = max(0, slot - now)
      if cost > max_cost then
        return {0, shaping_remaining(now, slot, p), reset, NEVER, 0}
      end
      if cost == 0 then
        return {1, shaping_remaining(now, slot, p), reset, 0, 0}
      end
      if delay > max_delay then
        return {0, shaping_remaining(now, slot, p), reset, delay - max_delay, 0}
      end
      local after = slot + cost * interval
      local r = {1, shaping_remaining(now, after, p), after - floor, 0, delay, after}
      r.receipt = after
      r.ttl = after - expiry_floor(now, slack)
      return r
    end,
    commit = function(key, now, cost, p, r)
      set_number(key, r[6], px(r.ttl))
    end,
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
      local back = nxt - min(cost, max_cost) * interval
      if earned or slack == 0 then
        -- A missing key is an idle one: at or below the floor, the key may go.
        set_instant(key, back, now - slack)
      else
        -- A missing key is a new one, which an idle key is not: every `next` at or below the
        -- floor decides alike, so the floor is kept, for one more slack window.
        local v = max(back, now - slack)
        redis.call('SET', key, s(v), 'PX', s(px(v - expiry_floor(now, slack))))
      end
    end
  }
end

A['shaping'] = shaping(false)
A['shaping-earned'] = shaping(true)
