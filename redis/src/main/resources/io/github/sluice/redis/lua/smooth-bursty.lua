-- smooth-bursty: Guava's SmoothBursty, as io.github.sluice.algorithm.SmoothBursty: the state is
-- z (us), the instant at which the stored permits would have been zero (nextFreeTicket less the
-- stored permits times the interval). A request is admitted iff z is not in the future (Guava's
-- tryAcquire without timeout); it never waits for its own permits but pushes z by them ("pay for
-- the previous request"). A missing key is a new Guava limiter: nothing stored, due now.
-- p[1] = stable interval (us), p[2] = max burst (us: idle time stored as permits), p[3] = limit
-- (the rate's permits, announced in headers), p[4] = the largest cost that is not refused forever.
-- A key that stores a full burst differs from a missing one (which stores nothing), so it is kept
-- one max burst longer than it takes to fill; when it expires all the same it comes back as a new
-- limiter (nothing stored): stricter, never looser, as when the in-memory registry drops it.
local function bursty_remaining(z, now, p)
  local interval, burst, limit = p[1], p[2], p[3]
  if z > now then
    return 0
  end
  return min(limit, 1 + idiv(min(burst, now - z), interval))
end

A['smooth-bursty'] = {
  decide = function(key, now, cost, p)
    local interval, burst, max_cost = p[1], p[2], p[4]
    local z = get_number(key) or now
    local reset = max(0, z - now + burst)
    if cost == 0 then
      return {1, bursty_remaining(z, now, p), reset, 0, 0}
    end
    if cost > max_cost then
      return {0, bursty_remaining(z, now, p), reset, NEVER, 0}
    end
    if z > now then
      return {0, bursty_remaining(z, now, p), reset, z - now, 0}
    end
    local nxt = max(z, now - burst) + cost * interval
    return {1, bursty_remaining(nxt, now, p), max(0, nxt - now + burst), 0, 0, nxt, receipt = now}
  end,
  commit = function(key, now, cost, p, r)
    set_number(key, r[6], px(r[3] + p[2]))
  end,
  -- A refund: the receipt is the admission's clock reading; as offset_refund, but the key is
  -- kept (a missing key is a new limiter, not a full one).
  release = function(key, now, cost, p)
    local interval, burst, max_cost = p[1], p[2], p[4]
    local t = receipt_of(p)
    if not t or now < t then
      return
    end
    local back = min(cost, max_cost) * interval - (now - t)
    if back <= 0 then
      return
    end
    local floor = now - burst
    local z = get_number(key)
    if not z or z <= floor then
      return
    end
    local v = max(z - back, floor)
    redis.call('SET', key, s(v), 'PX', s(px(v - floor + burst)))
  end
}
