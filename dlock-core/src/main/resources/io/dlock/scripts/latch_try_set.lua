-- Count-down latch: set the count if the latch is open.
--
-- KEYS[1]  the latch's count (a string holding a decimal integer; Redisson's RCountDownLatch key)
-- ARGV[1]  the count to set, a positive integer
-- ARGV[2]  the latch's time to live in ms, or "0" for none
-- ARGV[3]  the publish command: "publish", "spublish", or "both" (see the fragment notify)
-- ARGV[4]  the latch's channel, redisson_countdownlatch__channel__{NAME} (not a key: see docs/protocol.md §11)
--
-- Returns  1 when the count was set (and "1", Redisson's NEW_COUNT, published), 0 when the latch already had a count
--          (nothing changed).
--
-- Invariant: only an absent key is written; a latch with a TTL argument never exists without one. The publish runs
--            before the write, so a publish that fails aborts with nothing changed.
-- Wire protocol: Redisson's trySetCount (docs/protocol.md §11.2): EXISTS, SET, publish "1"; the TTL is dlock's.

--#include notify
--#include latch_count

local _, refusal, _, present = latch_count(KEYS[1])
if refusal then
    return refusal
end
if present then
    return 0
end
notify(ARGV[3], ARGV[4], '1')
local ttl = tonumber(ARGV[2])
if ttl > 0 then
    redis.call('set', KEYS[1], ARGV[1], 'px', ttl)
else
    redis.call('set', KEYS[1], ARGV[1])
end
return 1
