-- Count-down latch: read the count and the time to live (read only).
--
-- KEYS[1]  the latch's count
--
-- Returns  {count, pttl}: the count as stored, a decimal string (exact: a count above 2^53 that Redisson wrote is not
--          rounded, as a Lua number would round it), pttl an integer; {"0", -2} when the latch is open (no key); pttl
--          -1 when the key has no TTL.
--
-- Wire protocol: docs/protocol.md §11.2 (Redisson's getCount is a plain GET, nil read as 0).

--#include latch_count

local _, refusal, text, present = latch_count(KEYS[1])
if refusal then
    return refusal
end
if not present then
    return {'0', -2}
end
return {text, redis.call('pttl', KEYS[1])}
