-- Leased semaphore: extend the leases of live permits (the watchdog, and a holder's own extension).
--
-- KEYS[1]  the permit count (the semaphore's name)
-- KEYS[2]  the permit table, {NAME}:timeout
-- ARGV[1]  the new lease in ms (> 0), from the server's time now
-- ARGV[2…] permit ids, 32 lower-case hex digits each
--
-- Returns  a list with, per id in order, 1 when its lease was still running and now ends ARGV[1] ms from now, 0 when
--          the id is not in the table or its lease had ended already (nothing is changed for it: an ended lease is
--          never brought back, since another client may have counted on its reclaim).
--
-- Invariant: only ids in the table with a running lease are touched; the count is never changed.
-- Wire protocol: Redisson's updateLeaseTime (docs/protocol.md §13.2), by the server's clock, several ids per call.

--#include permit_table
--#include permit_id
--#include server_now_ms

local refusal = permit_table(KEYS[2])
if refusal then
    return refusal
end
local now = server_now_ms()
local expiry = now + tonumber(ARGV[1])
local renewed = {}
for i = 2, #ARGV do
    local id = permit_id(ARGV[i])
    local score = redis.call('zscore', KEYS[2], id)
    if score ~= false and tonumber(score) > now then
        redis.call('zadd', KEYS[2], 'xx', expiry, id)
        renewed[i - 1] = 1
    else
        renewed[i - 1] = 0
    end
end
return renewed
