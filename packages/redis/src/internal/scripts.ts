/**
 * The breaker's transitions as Lua scripts, each run whole on the Redis server: nothing of another
 * process interleaves with one, and every time is the server's (`TIME`), so hosts whose clocks
 * disagree see one park and one cooldown.
 *
 * A place's keys, under the prefix: `P` (a hash: place, failures, parked, last, and the counts
 * opens, trials and reparks), `P:trial` (the trial's taker, expiring with its lease), `P:cool`
 * (the cooldown's end, expiring with it). `<prefix>places` lists the places with a hash, and every
 * change is published on `<prefix>changed` with the place, so processes drop what they cached.
 *
 * Each is a typed `Redis.script` of `effect/persistence/Redis`, run by `EVALSHA` (loaded once).
 *
 * @internal
 */
import * as Redis from "effect/persistence/Redis"

const now = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`

/**
 * KEYS: hash, trial, cool. ARGV: taker, trial lease (ms), channel, place.
 * Answers `{now, kind, until, last}`: kind `clean`, `held`, `trial` (taken by ARGV[1]), `cooling`,
 * `parked`, or `out` (another's trial is out).
 */
export const admit = Redis.script(
  (
    hash: string,
    trial: string,
    cool: string,
    taker: string,
    lease: number,
    channel: string,
    place: string
  ) => [hash, trial, cool, taker, lease, channel, place],
  {
    numberOfKeys: 3,
    lua: `${now}
if redis.call('EXISTS', KEYS[1]) == 0 then return {now, 'clean'} end
local last = redis.call('HGET', KEYS[1], 'last')
local cool = redis.call('GET', KEYS[3])
if cool and tonumber(cool) > now then return {now, 'cooling', tonumber(cool), last} end
local parked = redis.call('HGET', KEYS[1], 'parked')
if not parked then return {now, 'held'} end
parked = tonumber(parked)
if now < parked then return {now, 'parked', parked, last} end
local lease = redis.call('PTTL', KEYS[2])
if lease > 0 then return {now, 'out', now + lease, last} end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'trials', 1)
redis.call('PUBLISH', ARGV[3], ARGV[4])
return {now, 'trial'}`
  }
).withReturnType<readonly [now: number, kind: string, until?: number, last?: string]>()

/**
 * KEYS: hash, trial, cool, places. ARGV: taker, place, last (JSON), counts (0/1), cool for (ms, 0
 * for none), failures that park, park (ms), hash lifetime (ms), channel. Answers `{now, parked}`:
 * when the place's park ends ('' when it is not parked).
 */
export const failed = Redis.script(
  (
    hash: string,
    trial: string,
    cool: string,
    places: string,
    taker: string,
    place: string,
    last: string,
    counts: boolean,
    coolFor: number,
    failuresToPark: number,
    park: number,
    lifetime: number,
    channel: string
  ) => [
    hash,
    trial,
    cool,
    places,
    taker,
    place,
    last,
    counts ? 1 : 0,
    coolFor,
    failuresToPark,
    park,
    lifetime,
    channel
  ],
  {
    numberOfKeys: 4,
    lua: `${now}
local trial = redis.call('GET', KEYS[2]) == ARGV[1]
local parked = redis.call('HGET', KEYS[1], 'parked')
local failures = tonumber(redis.call('HGET', KEYS[1], 'failures') or '0')
local counts = ARGV[4] == '1'
if counts and (trial or not parked) then failures = failures + 1 end
local parks = counts and (trial or ((not parked) and failures >= tonumber(ARGV[6])))
redis.call('HSET', KEYS[1], 'place', ARGV[2], 'failures', failures, 'last', ARGV[3])
if parks then
  redis.call('HSET', KEYS[1], 'parked', now + tonumber(ARGV[7]))
  if trial then
    redis.call('DEL', KEYS[2])
    redis.call('HINCRBY', KEYS[1], 'reparks', 1)
  else
    redis.call('HINCRBY', KEYS[1], 'opens', 1)
  end
end
local coolFor = tonumber(ARGV[5])
if coolFor > 0 then
  local ends = now + coolFor
  if ends > tonumber(redis.call('GET', KEYS[3]) or '0') then redis.call('SET', KEYS[3], ends, 'PX', coolFor) end
end
redis.call('PEXPIRE', KEYS[1], ARGV[8])
redis.call('SADD', KEYS[4], ARGV[2])
redis.call('PUBLISH', ARGV[9], ARGV[2])
return {now, redis.call('HGET', KEYS[1], 'parked') or ''}`
  }
).withReturnType<readonly [now: number, parked: string]>()

/** KEYS: hash, trial, cool, places. ARGV: place, channel. */
export const succeeded = Redis.script(
  (
    hash: string,
    trial: string,
    cool: string,
    places: string,
    place: string,
    channel: string
  ) => [hash, trial, cool, places, place, channel],
  {
    numberOfKeys: 4,
    lua: `if redis.call('EXISTS', KEYS[1]) == 0 and redis.call('EXISTS', KEYS[3]) == 0 then return 0 end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
redis.call('SREM', KEYS[4], ARGV[1])
redis.call('PUBLISH', ARGV[2], ARGV[1])
return 1`
  }
).withReturnType<number>()

/** KEYS: trial. ARGV: taker, channel, place. */
export const giveBack = Redis.script(
  (trial: string, taker: string, channel: string, place: string) => [trial, taker, channel, place],
  {
    numberOfKeys: 1,
    lua: `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1`
  }
).withReturnType<number>()

/**
 * KEYS: places. ARGV: prefix, channel, and the place to clear (none: every place). The keys of
 * places are made here from the prefix, so this (and snapshot) needs one Redis, not a cluster.
 */
export const clear = Redis.script(
  (
    places: string,
    prefix: string,
    channel: string,
    ...only: ReadonlyArray<string>
  ) => [places, prefix, channel, ...only],
  {
    numberOfKeys: 1,
    lua: `local places = ARGV[3] and {ARGV[3]} or redis.call('SMEMBERS', KEYS[1])
for _, place in ipairs(places) do
  local key = ARGV[1] .. place
  redis.call('DEL', key, key .. ':trial', key .. ':cool')
  redis.call('SREM', KEYS[1], place)
  redis.call('PUBLISH', ARGV[2], place)
end
return #places`
  }
).withReturnType<number>()

/**
 * KEYS: places. ARGV: prefix. Answers `{now, {place, failures, parked, last, cool, trial until, taker}...}`
 * ('' where there is none); places whose hash has expired are dropped from the list.
 */
export const snapshot = Redis.script(
  (places: string, prefix: string) => [places, prefix],
  {
    numberOfKeys: 1,
    lua: `${now}
local out = {now}
for _, place in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local key = ARGV[1] .. place
  local h = redis.call('HMGET', key, 'failures', 'parked', 'last')
  if h[3] then
    local lease = redis.call('PTTL', key .. ':trial')
    out[#out + 1] = {
      place, h[1] or '0', h[2] or '', h[3], redis.call('GET', key .. ':cool') or '',
      lease > 0 and tostring(now + lease) or '', redis.call('GET', key .. ':trial') or ''
    }
  else
    redis.call('SREM', KEYS[1], place)
  end
end
return out`
  }
).withReturnType<readonly [now: number, ...rows: ReadonlyArray<ReadonlyArray<string>>]>()
