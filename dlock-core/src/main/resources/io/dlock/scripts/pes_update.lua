-- Leased semaphore: reclaim expired permits, then optionally change the count (available, set, try-set, add).
--
-- KEYS[1]  the permit count (the semaphore's name)
-- KEYS[2]  the permit table, {NAME}:timeout
-- ARGV[1]  the change: "available" (none), "try-set" (the count becomes ARGV[2] only if the count key does not
--          exist), "set" (the total of available and acquired permits becomes ARGV[2]), "add" (the count plus
--          ARGV[2], which may be negative) or "delete" (both keys removed, if both are a leased semaphore's)
-- ARGV[2]  permits (an integer; ignored by "available")
-- ARGV[3]  "try-set" only: the TTL in ms to give a count key it creates, or 0 for none
-- ARGV[4]  the publish command: "publish", "spublish" or "both"
-- ARGV[5]  the semaphore's channel, redisson_sc:{NAME} (not a key)
--
-- Returns  a list {available after the call, acquired permits in the table, 1|0}, the last being 1 when "try-set"
--          set the count (always 1 for the other changes); "delete": {keys removed, 0, 1}; the error of
--          permit_count / permit_table when a key has the wrong type (nothing removed); the error of permit_range when
--          the count would leave the range of a Java int.
--
-- Invariant: expired permits are reclaimed first (by the server's clock), so the answer never counts a dead holder's
-- permit as acquired; a TTL the count has is kept (INCRBY). A new count is published only when above zero.
-- Wire protocol: Redisson's availablePermits / setPermits / trySetPermits / addPermits of
-- RPermitExpirableSemaphore (docs/protocol.md §13.2).

--#include leased_semaphore_keys
--#include permit_range
--#include server_now_ms
--#include reclaim_expired

local available, expired, _, refusal = leased_semaphore_keys(KEYS[1], KEYS[2], server_now_ms())
if refusal then
    return refusal
end
if ARGV[1] == 'delete' then
    return {redis.call('del', KEYS[1], KEYS[2]), 0, 1}
end
available = reclaim_expired(KEYS[1], KEYS[2], available, expired, ARGV[4], ARGV[5])
local acquired = redis.call('zcard', KEYS[2])
local mode = ARGV[1]
local permits = tonumber(ARGV[2])
if mode == 'available' then
    return {available, acquired, 1}
end
if mode == 'try-set' and redis.call('exists', KEYS[1]) == 1 then
    return {available, acquired, 0}
end
local after
if mode == 'try-set' then
    after = permits
elseif mode == 'set' then
    after = permits - acquired
elseif mode == 'add' then
    after = available + permits
else
    return redis.error_reply('ERR dlock: unknown semaphore change ' .. tostring(mode))
end
local out_of_range = permit_range(after)
if out_of_range then
    return out_of_range
end
announce_permits(ARGV[4], ARGV[5], after)
if mode == 'try-set' then
    local ttl = tonumber(ARGV[3])
    if ttl > 0 then
        redis.call('set', KEYS[1], permits, 'px', ttl)
    else
        redis.call('set', KEYS[1], permits)
    end
else
    redis.call('incrby', KEYS[1], after - available)
end
return {after, acquired, 1}
