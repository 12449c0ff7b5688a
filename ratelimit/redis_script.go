package ratelimit

import "github.com/redis/go-redis/v9"

// slidingLogLua is the one script behind every RedisStore call. It touches
// only KEYS[1], a sorted set whose members are "<now_us>:<seq>" (unique even
// when several hits share a microsecond) scored by the hit time in µs, and
// takes the time from Redis TIME so that every application instance shares
// one clock.
//
// ARGV: mode ("get", "peek", "incr" or "reset"), period in µs, limit, count.
// Returns {hits in window, oldest hit µs or -1, now µs, reached 0|1, free hit
// µs or -1}: the free hit is the one whose leaving makes room for one more
// (freeIndex in window.go).
const slidingLogLua = `
if redis.replicate_commands then redis.replicate_commands() end
local key = KEYS[1]
local mode = ARGV[1]
local period = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local count = tonumber(ARGV[4])

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local nowstr = string.format('%.0f', now)

if mode == 'reset' then
  redis.call('DEL', key)
  return {0, -1, now, 0, -1}
end

redis.call('ZREMRANGEBYSCORE', key, '-inf', string.format('%.0f', now - period))
local n = redis.call('ZCARD', key)

local add = 0
local reached = 0
if mode == 'get' then
  if n < limit then add = 1 else reached = 1 end
elseif mode == 'incr' then
  add = count
end

if add > 0 then
  local seq = n
  for i = 1, add do
    local member = nowstr .. ':' .. seq
    while redis.call('ZSCORE', key, member) do
      seq = seq + 1
      member = nowstr .. ':' .. seq
    end
    redis.call('ZADD', key, nowstr, member)
    seq = seq + 1
  end
  n = n + add
  redis.call('PEXPIRE', key, string.format('%.0f', math.ceil(period / 1000)))
end

if mode ~= 'get' and n >= limit then reached = 1 end

local oldest = -1
if n > 0 then
  oldest = tonumber(redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2])
end
local free = -1
if n > 0 and n >= limit then
  local i = math.min(n - math.max(limit, 1), n - 1)
  free = tonumber(redis.call('ZRANGE', key, i, i, 'WITHSCORES')[2])
end
return {n, oldest, now, reached, free}
`

// newSlidingLogScript returns the script, run with EVALSHA and loaded on a
// NOSCRIPT reply by go-redis.
func newSlidingLogScript() *redis.Script {
	return redis.NewScript(slidingLogLua)
}
