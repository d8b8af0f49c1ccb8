-- sliding-window: a hash of per-slot counts keyed by the slot's number since the epoch, plus
-- h = the newest slot written (the in-memory head), as io.github.sluice.algorithm.SlidingWindow.
-- p[1] = limit, p[2] = slot length (us), p[3] = slots per window.
local function sw_read(key)
  local counts, head = {}, nil
  local raw = redis.pcall('HGETALL', key)
  if type(raw) == 'table' and not raw['err'] then
    for i = 1, #raw, 2 do
      if raw[i] == 'h' then
        head = tonumber(raw[i + 1])
      else
        local sn = tonumber(raw[i])
        if sn then
          counts[sn] = tonumber(raw[i + 1]) or 0
        end
      end
    end
  end
  return counts, head
end

A['sliding-window'] = {
  decide = function(key, now, cost, p)
    local limit, slot_us, slots = p[1], p[2], p[3]
    local counts, head = sw_read(key)
    local current = idiv(now, slot_us)
    -- A head ahead of our slot was written with a later clock reading: this request is refused
    -- (a peek reports the head's window), as counting it in the head's slot could put more than
    -- the limit in the window that ends with its own slot.
    local stale = false
    if head and head > current then
      current = head
      stale = true
    end
    local function count(sn)
      return counts[sn] or 0
    end
    local used = 0
    for sn = current - slots + 1, current do
      used = used + count(sn)
    end
    local reset = 0
    for sn = current, current - slots + 1, -1 do
      if count(sn) > 0 then
        reset = (sn + slots) * slot_us - now
        break
      end
    end
    if stale and cost > 0 and cost <= limit and used + cost <= limit then
      return {0, limit - used, reset, current * slot_us - now, 0}
    end
    if cost > limit or used + cost > limit then
      local retry = NEVER
      if cost <= limit then
        local left = used
        retry = (current + slots) * slot_us - now
        for k = 1, slots do
          left = left - count(current - slots + k)
          if left + cost <= limit then
            retry = (current + k) * slot_us - now
            break
          end
        end
      end
      return {0, limit - used, reset, retry, 0}
    end
    if cost == 0 then
      return {1, limit - used, reset, 0, 0}
    end
    local left = {}
    for sn, _ in pairs(counts) do
      if sn <= current - slots then
        left[#left + 1] = s(sn)
      end
    end
    return {1, limit - used - cost, (current + slots) * slot_us - now, 0, 0, current, left, receipt = current}
  end,
  commit = function(key, now, cost, p, r)
    claim(key, 'hash')
    local current = s(r[6])
    redis.call('HINCRBY', key, current, s(cost))
    redis.call('HSET', key, 'h', current)
    if #r[7] > 0 then
      redis.call('HDEL', key, unpack(r[7]))
    end
    redis.call('PEXPIRE', key, s(px(r[3])))
  end,
  -- A refund: the receipt is the slot the admission was counted in. Its count is lowered wherever
  -- the head is now (the hash keeps every slot still inside a window); a slot that left every
  -- window was deleted, and the refund is dropped.
  release = function(key, now, cost, p)
    local slot = receipt_of(p)
    if not slot then
      return
    end
    local c = tonumber(redis.pcall('HGET', key, s(slot)))
    if c and c > 0 then
      redis.call('HSET', key, s(slot), s(max(0, c - cost)))
    end
  end
}
