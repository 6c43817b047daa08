-- Leased semaphore: give one permit back by its id.
--
-- KEYS[1]  the permit count (the semaphore's name)
-- KEYS[2]  the permit table, {NAME}:timeout
-- ARGV[1]  the publish command: "publish", "spublish" or "both"
-- ARGV[2]  the semaphore's channel, redisson_sc:{NAME} (not a key)
-- ARGV[3]  the permit's id: 32 lower-case hex digits
--
-- Returns  1 when the permit was in the table with its lease still running (by the server's clock) and is given back;
--          0 when it was in the table but its lease had ended (not reclaimed yet): it is given back now, but its
--          holder was not protected by it any more; -1 when the id is not in the table (never acquired, released
--          already, or expired and reclaimed): nothing is changed;
--          the error of permit_count / permit_table when a key has the wrong type.
--
-- Invariant: a permit goes back to the count at most once (the ZREM that removes its id decides). The new count is
-- published (decimal) when above zero, before the write.
-- Wire protocol: Redisson's RPermitExpirableSemaphore tryRelease (docs/protocol.md §13.2); Redisson answers 0 for
-- both of our 0 and -1.

--#include leased_semaphore_keys
--#include permit_id
--#include server_now_ms
--#include notify

local available, refusal = leased_semaphore_keys(KEYS[1], KEYS[2])
if refusal then
    return refusal
end
local id = permit_id(ARGV[3])
local expiry = redis.call('zscore', KEYS[2], id)
if expiry == false then
    return -1
end
if available + 1 > 0 then
    notify(ARGV[1], ARGV[2], tostring(available + 1))
end
redis.call('zrem', KEYS[2], id)
redis.call('incrby', KEYS[1], 1)
if tonumber(expiry) > server_now_ms() then
    return 1
end
return 0
