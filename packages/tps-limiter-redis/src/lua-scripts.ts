/**
 * The Lua scripts of the `redis` limiter: each decides one call atomically, in one round trip, on the Redis
 * server's clock (`TIME`), so the clocks of the provider hosts never matter.
 *
 * @remarks
 * Loaded with ioredis `defineCommand`: `EVALSHA`, and `EVAL` once when the server answers `NOSCRIPT` (a restarted
 * or flushed Redis). Numbers stay below 2^53 and print exactly (`%.14g` covers epoch milliseconds).
 * `KEYS[1]` is the window's key; `ARGV[1]` the rate (`>= 1`), `ARGV[2]` the interval in ms; the answer is `1`
 * (admitted, counted) or `0` (refused, nothing consumed).
 *
 * @example
 * ```ts
 * client.defineCommand('weftTpsFixed', { numberOfKeys: 1, lua: FIXED_WINDOW_LUA });
 * ```
 */
export const FIXED_WINDOW_LUA = `
if redis.replicate_commands then pcall(redis.replicate_commands) end
local rate = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local w = redis.call('HMGET', KEYS[1], 's', 'n')
local start = tonumber(w[1])
local n = tonumber(w[2]) or 0
if start == nil or now - start >= interval or now < start then
  start = now
  n = 0
end
if n >= rate then
  -- The interval may have changed since the window opened: it ends at start + the current interval.
  if start + interval > now then redis.call('PEXPIREAT', KEYS[1], start + interval) end
  return 0
end
redis.call('HSET', KEYS[1], 's', start, 'n', n + 1)
redis.call('PEXPIREAT', KEYS[1], start + interval)
return 1
`;

/**
 * The exact sliding log: a sorted set of the admissions of the last interval (score: Redis time in ms; member:
 * `ARGV[3]`, unique per call). A call is admitted when fewer than `rate` admissions lie in `(now - interval, now]`.
 *
 * @example
 * ```ts
 * client.defineCommand('weftTpsSliding', { numberOfKeys: 1, lua: SLIDING_LOG_LUA });
 * ```
 */
export const SLIDING_LOG_LUA = `
if redis.replicate_commands then pcall(redis.replicate_commands) end
local rate = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - interval)
if redis.call('ZCARD', KEYS[1]) >= rate then return 0 end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], interval)
return 1
`;
