-- Semaphore: change the permit count (release, add, set, try-set, drain).
--
-- KEYS[1]  the permit count (the semaphore's name)
-- ARGV[1]  the change: "add" (addPermits: the count plus ARGV[2], which may be negative), "release" (the same
--          change, answered differently), "set" (the
--          count becomes ARGV[2]), "try-set" (the count becomes ARGV[2] only if the key does not exist), "drain"
--          (the count becomes 0), "delete" (the key is removed, if it is a permit count) or "available" (nothing
--          changes: availablePermits, with the key's type checked)
-- ARGV[2]  permits (an integer; ignored by "drain")
-- ARGV[3]  "try-set" only: the TTL in ms to give a key it creates, or 0 for none
-- ARGV[4]  the publish command: "publish", "spublish" or "both"
-- ARGV[5]  the semaphore's channel, redisson_sc:{NAME} (not a key)
--
-- Returns  "add": the count after the call; "release": how many subscribers its message reached (0 when nothing was
--          published); "set": the count before (0 if missing); "try-set": 1 when it set the
--          count, 0 when the key existed (an existing 0 counts as set); "drain": the count before (0 if missing);
--          "delete": 1 when it removed the key, else 0; "available": the count (0 if missing); the error of permit_count when the key is not a permit count
--          (never removed); the error of permit_range when the count would leave the range of a Java int.
--
-- Invariant: a TTL the key has is kept by every change (INCRBY, SET KEEPTTL), unlike Redisson's addPermits and
-- drainPermits, which drop it; "try-set" with a TTL never leaves the key without one. The new count is published
-- (decimal) only when it is above zero. "set" and "try-set" publish before the write, so a publish that fails changes
-- nothing. "add" and "release" read nothing first (fragment add_permits, which also says when it publishes); a
-- count it took out of the int range is put back by the same call (only an existing, non-zero count can leave it,
-- since ARGV[2] is an int, so no key is left behind).
-- Wire protocol: Redisson's RSemaphore release / addPermits / trySetPermits / drainPermits (docs/protocol.md §13.1).

--#include permit_count
--#include add_permits
--#include permit_range
--#include announce_permits

local mode = ARGV[1]
local permits = tonumber(ARGV[2])
if mode == 'add' or mode == 'release' then
    local after, refusal = add_permits(KEYS[1], permits)
    if refusal then
        return refusal
    end
    local out_of_range = permit_range(after)
    if out_of_range then
        redis.call('decrby', KEYS[1], permits)
        return out_of_range
    end
    local receivers = announce_permits(ARGV[4], ARGV[5], after)
    if mode == 'release' then
        return receivers
    end
    return after
end
local available, refusal = permit_count(KEYS[1])
if refusal then
    return refusal
end
if mode == 'available' then
    return available
end
if mode == 'delete' then
    return redis.call('del', KEYS[1])
end
if mode == 'try-set' then
    if redis.call('exists', KEYS[1]) == 1 then
        return 0
    end
    announce_permits(ARGV[4], ARGV[5], permits)
    local ttl = tonumber(ARGV[3])
    if ttl > 0 then
        redis.call('set', KEYS[1], permits, 'px', ttl)
    else
        redis.call('set', KEYS[1], permits)
    end
    return 1
end
if mode == 'set' then
    announce_permits(ARGV[4], ARGV[5], permits)
    redis.call('set', KEYS[1], permits, 'keepttl')
    return available
end
if mode == 'drain' then
    if redis.call('exists', KEYS[1]) == 1 then
        redis.call('set', KEYS[1], 0, 'keepttl')
    end
    return available
end
return redis.error_reply('ERR dlock: unknown semaphore change ' .. tostring(mode))
