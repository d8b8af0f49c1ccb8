-- The dispatcher. KEYS[i] is policy i's key; ARGV[1] is the client's clock in microseconds, or
-- '' to read Redis TIME; ARGV[2] is the operation:
--   'a'  acquire, all or nothing: every policy is decided; only if all admit are they written.
--        After the first denial the remaining policies are peeked (cost 0). Reply: six integers
--        per policy: admitted (1/0), remaining, reset (us), retry-after (us, -1 = never), delay,
--        and the admission's receipt (0 when it has none), which a refund sends back.
--   'b'  a batch: the acquisitions of several requests of one instance on the same keys (the
--        store's coalescing), decided one after the other in the order given, each all or
--        nothing exactly as 'a' decides it, so that a request sees what the ones before it took.
--        ARGV holds #KEYS policies' values per request, request after request. Reply: the
--        replies 'a' would give each request, one after the other.
--   'c'  a compact batch: as 'b', for requests on one policy that differ only in their cost:
--        ARGV holds the policy's values once (the first request's), then each request's cost.
--        Reply: per request, a mask m, then those of its six values that differ from the
--        request before it's (the first request's from six zeros), in order: value i is sent iff
--        bit i - 1 of m is set. Requests of a hot key mostly repeat admitted, retry-after, delay
--        and receipt: three integers each rather than six.
--   'l'  a lease (the store's lease mode), one policy: takes up to the cost given (the share) of
--        its key, as much as the key has, but at least the number in the receipt's place (the
--        cost of the request that asked); the same six integers as 'a', the first being the
--        permits taken (0 when not even the least could be: then remaining, reset and
--        retry-after are those of a request of the least cost), the receipt being the take's.
--   'r'  release: a refund (with the admission's receipt), or the end of a concurrent request.
--        Reply: an empty array.
--   'n'  renew the leases the arguments name (concurrency). Reply: an empty array.
--   'p'  the store's probe: writes KEYS[1] with a TTL of ARGV[3] ms (unless that is 0), proving
--        that the script runs and that the key's master accepts writes. Reply: an empty array.
-- Per policy, ARGV holds STRIDE values from 3 + (i - 1) * STRIDE: the algorithm's kind, the
-- cost, then up to five parameters (numbers, or strings such as a lease id), then the receipt
-- of the admission a refund undoes ('-' for none).
local STRIDE = 8

local now
if ARGV[1] ~= '' then
  now = tonumber(ARGV[1])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end

local function policy(i)
  local b = 3 + (i - 1) * STRIDE
  local alg = A[ARGV[b]] or define(ARGV[b])
  if not alg then
    error('sluice: unknown algorithm ' .. tostring(ARGV[b]))
  end
  -- One constructor (STRIDE - 2 values) sizes the table once; numbers as numbers, ids as strings.
  local p1, p2, p3, p4, p5, p6 = ARGV[b + 2], ARGV[b + 3], ARGV[b + 4], ARGV[b + 5], ARGV[b + 6], ARGV[b + 7]
  local p = {tonumber(p1) or p1, tonumber(p2) or p2, tonumber(p3) or p3, tonumber(p4) or p4,
    tonumber(p5) or p5, tonumber(p6) or p6}
  return alg, tonumber(ARGV[b + 1]), p
end

local op = ARGV[2]
local n = #KEYS
local batch = A['~batch']
batch.reset()
A['~clock'].set(ARGV[1] ~= '')

-- One request on one policy: decided, and written if it is admitted at a cost. Returns its six
-- reply values. An algorithm's own step does it without a table (see offset_algorithm).
local function step(alg, key, cost, p)
  local f = alg.step
  if f then
    return f(key, now, cost, p)
  end
  local r = alg.decide(key, now, cost, p)
  if r[1] ~= 0 and cost > 0 then
    alg.commit(key, now, cost, p, r)
  end
  return r[1], r[2], r[3], r[4], r[5], r.receipt or 0
end

-- One request's acquisition of the n policies whose values start after policy `base`, all or
-- nothing: every policy is decided; only if all admit are they written. After the first denial
-- the remaining policies are peeked (cost 0). Appends six integers per policy to out.
local function acquire(base, out)
  local algs, costs, params, res = {}, {}, {}, {}
  local denied = 0
  for i = 1, n do
    local alg, cost, p = policy(base + i)
    if denied > 0 then
      cost = 0
    end
    algs[i], costs[i], params[i] = alg, cost, p
    res[i] = alg.decide(KEYS[i], now, cost, p)
    if res[i][1] == 0 and denied == 0 then
      denied = i
    end
  end
  if denied == 0 then
    for i = 1, n do
      if costs[i] > 0 then
        algs[i].commit(KEYS[i], now, costs[i], params[i], res[i])
      end
    end
  end
  for i = 1, n do
    local k = #out
    out[k + 1], out[k + 2], out[k + 3], out[k + 4], out[k + 5], out[k + 6] =
      res[i][1], res[i][2], res[i][3], res[i][4], res[i][5], res[i].receipt or 0
  end
  return out
end

if op == 'p' then
  if ARGV[3] ~= '0' then
    redis.call('SET', KEYS[1], '1', 'PX', ARGV[3])
  end
  return {}
elseif op == 'a' and n == 1 then
  -- One policy (the common call): the loop below without its bookkeeping tables.
  local alg, cost, p = policy(1)
  return {step(alg, KEYS[1], cost, p)}
elseif op == 'a' then
  return acquire(0, {})
elseif op == 'b' then
  local out = {}
  local requests = (#ARGV - 2) / (n * STRIDE)
  batch.begin()
  if n == 1 then
    -- One policy per request (the common batch): the single call's path, request after request.
    local k = 0
    for j = 1, requests do
      local alg, cost, p = policy(j)
      out[k + 1], out[k + 2], out[k + 3], out[k + 4], out[k + 5], out[k + 6] = step(alg, KEYS[1], cost, p)
      k = k + 6
    end
    batch.flush()
    return out
  end
  for j = 0, requests - 1 do
    acquire(j * n, out)
  end
  batch.flush()
  return out
elseif op == 'c' then
  local alg, _, p = policy(1)
  local key = KEYS[1]
  local out = {}
  local k = 0
  -- The request before's values (see 'c' above).
  local o1, o2, o3, o4, o5, o6 = 0, 0, 0, 0, 0, 0
  -- Appends a request's reply.
  local function emit(v1, v2, v3, v4, v5, v6)
    local at = k + 1
    local m = 0
    out[at] = 0 -- in order: the table's array part grows, no hash part
    k = at
    if v1 ~= o1 then
      m, k, o1 = 1, k + 1, v1
      out[k] = v1
    end
    if v2 ~= o2 then
      m, k, o2 = m + 2, k + 1, v2
      out[k] = v2
    end
    if v3 ~= o3 then
      m, k, o3 = m + 4, k + 1, v3
      out[k] = v3
    end
    if v4 ~= o4 then
      m, k, o4 = m + 8, k + 1, v4
      out[k] = v4
    end
    if v5 ~= o5 then
      m, k, o5 = m + 16, k + 1, v5
      out[k] = v5
    end
    if v6 ~= o6 then
      m, k, o6 = m + 32, k + 1, v6
      out[k] = v6
    end
    out[at] = m
  end
  if alg.run then
    -- The algorithm decides the batch itself, its state in locals, read once and written once
    -- (see offset_algorithm): no batch cache.
    alg.run(key, now, p, ARGV, 3 + STRIDE, emit)
    return out
  end
  batch.begin()
  for j = 3 + STRIDE, #ARGV do
    emit(step(alg, key, tonumber(ARGV[j]), p))
  end
  batch.flush()
  return out
elseif op == 'l' then
  local alg, want, p = policy(1)
  local least = p[6]
  local r = alg.decide(KEYS[1], now, want, p)
  if r[1] == 0 then
    -- Not the whole share: as much as is left (a second decide at that cost), else the least's
    -- denial, whose retry-after is the request's.
    local take = r[2]
    if take > want then
      take = want
    end
    if take >= least and take > 0 then
      local r2 = alg.decide(KEYS[1], now, take, p)
      if r2[1] ~= 0 then
        r, want = r2, take
      end
    end
    if r[1] == 0 then
      r = alg.decide(KEYS[1], now, least, p)
      if r[1] ~= 0 then
        want = least
      end
    end
  end
  if r[1] ~= 0 then
    alg.commit(KEYS[1], now, want, p, r)
    return {want, r[2], r[3], 0, 0, r.receipt or 0}
  end
  return {0, r[2], r[3], r[4], 0, 0}
elseif op == 'r' or op == 'n' then
  for i = 1, n do
    local alg, cost, p = policy(i)
    if cost > 0 then
      if op == 'r' then
        alg.release(KEYS[i], now, cost, p)
      elseif alg.renew then
        alg.renew(KEYS[i], now, cost, p)
      end
    end
  end
  return {}
end
return redis.error_reply('sluice: unknown operation ' .. tostring(op))
