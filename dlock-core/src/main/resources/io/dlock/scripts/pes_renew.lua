-- Leased semaphore: extend the leases of live permits (the watchdog, and a holder's own extension), or read them back
-- (the watchdog's check of fixed-lease permits, which another client may have changed: Redisson's updateLeaseTime).
--
-- KEYS[1]  the permit count (the semaphore's name)
-- KEYS[2]  the permit table, {NAME}:timeout
-- ARGV[1]  the new lease in ms (> 0), from the server's time now; 0 to change nothing and only read
-- ARGV[2…] permit ids, 32 lower-case hex digits each
--
-- Returns  a list with, per id in order, the ms its lease has left after the call (> 0: ARGV[1] when it was
--          extended) while its lease was still running, 0 when the id is not in the table or its lease had ended
--          already (nothing is changed for it: an ended lease is never brought back, since another client may have
--          counted on its reclaim).
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
local lease = tonumber(ARGV[1])
local renewed = {}
for i = 2, #ARGV do
    local id = permit_id(ARGV[i])
    local score = redis.call('zscore', KEYS[2], id)
    if score ~= false and tonumber(score) > now then
        if lease > 0 then
            redis.call('zadd', KEYS[2], 'xx', now + lease, id)
            renewed[i - 1] = lease
        else
            renewed[i - 1] = math.floor(tonumber(score) - now)
        end
    else
        renewed[i - 1] = 0
    end
end
return renewed
