-- Semaphore: give back what one acquire attempt took, by its grant mark.
--
-- KEYS[1]  the permit count (the semaphore's name)
-- KEYS[2]  the attempt's grant mark (sem_acquire)
-- ARGV[1]  "unknown": the attempt's reply was lost, give back only if its mark says it ran and took permits;
--          "known": the attempt's grant arrived but nobody will receive it, give back ARGV[2] permits in any case
-- ARGV[2]  the permits the attempt asked for
-- ARGV[3]  the publish command: "publish", "spublish" or "both"
-- ARGV[4]  the semaphore's channel, redisson_sc:{NAME} (not a key)
--
-- Returns  the permits given back (0 when the attempt took nothing); the error of permit_count when the count key is
--          not a permit count (nothing changed).
--
-- Invariant: each attempt's permits come back at most once (the mark is deleted as they come back), so a give-back
-- sent twice, or after the mark expired, never creates a permit. The new count is published when it is above zero.
-- Wire protocol: the count and channel are Redisson's RSemaphore (docs/protocol.md §13.1); the mark is dlock's own.

--#include permit_count
--#include add_permits
--#include announce_permits

local marked = redis.call('get', KEYS[2])
local permits = 0
if ARGV[1] == 'known' then
    permits = tonumber(ARGV[2])
elseif marked then
    permits = tonumber(marked)
end
if permits <= 0 then
    local _, refusal = permit_count(KEYS[1])
    if refusal then
        return refusal
    end
    redis.call('del', KEYS[2])
    return 0
end
local after, refusal = add_permits(KEYS[1], permits)
if refusal then
    return refusal
end
redis.call('del', KEYS[2])
announce_permits(ARGV[3], ARGV[4], after)
return permits
