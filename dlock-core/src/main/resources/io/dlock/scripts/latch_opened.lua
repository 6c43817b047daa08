-- Count-down latch: tell awaiters that a latch has opened without a count-down (it expired).
--
-- KEYS[1]  the latch's count
-- ARGV[1]  the publish command
-- ARGV[2]  the latch's channel
--
-- Returns  1 when the latch is open (no count above 0) and "0" was published, 0 when it has a count again (nothing published).
--
-- Sent by a dlock awaiter that found the latch open when its bounded re-check woke it, not a message: the latch
-- expired (its participants never counted it down) or a message was lost. Redisson's awaiters, parked without a time
-- limit, wake only on a message; this one wakes them to the same answer, count 0 (docs/protocol.md §11.3).

--#include notify
--#include latch_count

local count, refusal = latch_count(KEYS[1])
if refusal then
    return refusal
end
if count > 0 then
    return 0
end
notify(ARGV[1], ARGV[2], '0')
return 1
