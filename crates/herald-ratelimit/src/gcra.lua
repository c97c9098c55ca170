-- GCRA check for one bucket, atomically; the same arithmetic as src/gcra.rs (see there for why).
-- KEYS[1]: the bucket, a hash {tat, interval} in microseconds of Redis's clock.
-- ARGV: cost, interval (µs per send), burst, and 1 to decide without writing (a dry run's peek).
-- Returns {1, debt after the sends} when they pass, {0, debt as it stands} when limited.
local cost = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local window = burst * interval
local peek = ARGV[4] == '1'

-- Redis before 5 refuses writes after TIME unless the script's effects, not the script, replicate;
-- later versions always do that and keep this as a no-op.
if redis.replicate_commands then
  redis.replicate_commands()
end

-- Redis's clock, not the callers': processes with skewed clocks then agree on every bucket.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])

local stored = redis.call('HMGET', KEYS[1], 'tat', 'interval')
local debt = 0
local changed = false
local tat = tonumber(stored[1])
if tat then
  debt = math.max(tat - now, 0)
  local old_interval = tonumber(stored[2])
  if old_interval ~= interval then
    changed = true
    if old_interval and old_interval > 0 then
      -- A plan change keeps the sends used, re-expressed in the new interval, rounded up.
      debt = math.ceil(debt * interval / old_interval)
    end
  end
end
if debt > window then
  debt = window
  changed = true
end

-- Numbers above 1e14 lose digits through tostring in Lua 5.1; '%.0f' keeps them whole.
local function store(d)
  if peek then
    return
  end
  if d <= 0 then
    redis.call('DEL', KEYS[1])
  else
    redis.call('HSET', KEYS[1], 'tat', string.format('%.0f', now + d),
      'interval', string.format('%.0f', interval))
    -- A bucket whose TAT has passed is full, the same as no bucket: let Redis forget it then.
    redis.call('PEXPIRE', KEYS[1], math.ceil(d / 1000))
  end
end

local after = debt + cost * interval
if after <= window then
  store(after)
  return {1, after}
end
if changed then
  store(debt)
end
return {0, debt}
