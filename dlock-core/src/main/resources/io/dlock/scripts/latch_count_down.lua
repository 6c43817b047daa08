-- Count-down latch: count down by one.
--
-- KEYS[1]  the latch's count
-- ARGV[1]  the publish command
-- ARGV[2]  the latch's channel, redisson_countdownlatch__channel__{NAME}
--
-- Returns  the count after the call: > 0 when the latch stays closed (its TTL kept; capped at 2^53, as a count that
--          Redisson set above it reads back rounded in Lua, and one near 2^63 would not convert back), 0 when this
--          call opened it (key deleted, "0", Redisson's ZERO_COUNT, published: every awaiter wakes), < 0 when it was
--          open already (nothing kept, nothing published).
--
-- Invariant: the key never holds a count <= 0 after the call; a closed latch keeps its TTL (DECR keeps it); a key that
-- is not a latch is left as it was (DECR refuses it before changing anything, and the refusal is latch_count's).
-- Wire protocol: Redisson's countDown (docs/protocol.md §11.2): DECR; DEL when <= 0; publish "0" when = 0.

--#include notify
--#include latch_count

-- DECR is its own check: it refuses, changing nothing, exactly the keys latch_count refuses (another type; a string
-- that is not a 64-bit integer as DECR reads one); latch_count then only names what the key holds
local left = redis.pcall('decr', KEYS[1])
if type(left) == 'table' and left['err'] then
    local _, refusal = latch_count(KEYS[1])
    return refusal or left
end
if left <= 0 then
    if left == 0 then
        notify(ARGV[1], ARGV[2], '0')
    end
    redis.call('del', KEYS[1])
end
return math.min(left, 9007199254740992)
