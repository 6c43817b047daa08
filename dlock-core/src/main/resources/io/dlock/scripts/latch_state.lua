-- Count-down latch: read the count and the time to live (read only).
--
-- KEYS[1]  the latch's count
--
-- Returns  {count, pttl}: count 0 and pttl -2 when the latch is open (no key); pttl -1 when the key has no TTL.
--
-- Wire protocol: docs/protocol.md §11.2 (Redisson's getCount is a plain GET, nil read as 0).

--#include latch_count

local count, refusal = latch_count(KEYS[1])
if refusal then
    return refusal
end
if count == 0 and redis.call('exists', KEYS[1]) == 0 then
    return {0, -2}
end
return {count, redis.call('pttl', KEYS[1])}
