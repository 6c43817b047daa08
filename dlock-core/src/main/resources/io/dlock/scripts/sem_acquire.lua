-- Semaphore: take permits if enough are available.
--
-- KEYS[1]  the permit count (the semaphore's name): a string holding a decimal integer
-- ARGV[1]  permits to take (> 0)
--
-- Returns  1 when the permits were taken (the count lowered by ARGV[1]), 0 when fewer are available (a missing key
--          has none) and nothing was changed; the error of permit_count when the key is not a permit count.
--
-- Invariant: the count never goes below zero through an acquisition; its TTL is kept (DECRBY).
-- Wire protocol: Redisson's RSemaphore tryAcquire (docs/protocol.md §13.1): same predicate, same write.

--#include permit_count

local available, refusal = permit_count(KEYS[1])
if refusal then
    return refusal
end
local wanted = tonumber(ARGV[1])
if available < wanted then
    return 0
end
redis.call('decrby', KEYS[1], wanted)
return 1
