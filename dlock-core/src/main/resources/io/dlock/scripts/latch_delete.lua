-- Count-down latch: delete it (opening it for every awaiter).
--
-- KEYS[1]  the latch's count
-- ARGV[1]  the publish command
-- ARGV[2]  the latch's channel
--
-- Returns  1 when a count was deleted ("0" published: every awaiter, dlock's and Redisson's, wakes and finds the
--          latch open), 0 when there was none.
--
-- Wire protocol: docs/protocol.md §11.2. Redisson's delete publishes "1" instead, which leaves its own awaiters asleep
--                on a latch that reads as open; dlock publishes "0" so that no awaiter is left behind.

--#include notify
--#include latch_count

local _, refusal, _, present = latch_count(KEYS[1])
if refusal then
    return refusal
end
if not present then
    return 0
end
notify(ARGV[1], ARGV[2], '0')
redis.call('del', KEYS[1])
return 1
