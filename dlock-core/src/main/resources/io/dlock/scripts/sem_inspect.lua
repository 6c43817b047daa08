-- Semaphore inspection: a read-only snapshot of a semaphore, plain or leased, in one round trip.
--
-- KEYS[1]  the permit count (the semaphore's name)
-- KEYS[2]  the permit table of a leased semaphore, {NAME}:timeout (NAME:timeout when NAME has a hash tag): a zset of
--          raw 16-byte ids scored by their absolute expiry in epoch ms; missing for a plain semaphore, and for a
--          leased one with no permit out (Redis removes an empty zset)
--
-- Returns  {the count (0 when the key is missing), PTTL of the count, the server's time in epoch ms,
--           the table in score order as a flat list: id in lower-case hex, score (a decimal string), id, score ...}
--          or the error of permit_count / permit_table when a key has the wrong type.
--
-- Invariant: writes nothing and publishes nothing: a permit whose lease has ended is reported with its score, not
-- reclaimed (the client counts it as available, as the next reclaim would). Never answers the value of a key that
-- is not a semaphore's (permit_count refuses it without showing it).
-- Wire protocol: reads the layouts of docs/protocol.md §13.1 and §13.2.

--#include permit_count
--#include permit_table
--#include server_now_ms

local count, refusal = permit_count(KEYS[1])
if refusal then
    return refusal
end
refusal = permit_table(KEYS[2])
if refusal then
    return refusal
end
local entries = redis.call('zrange', KEYS[2], 0, -1, 'withscores')
local table_out = {}
for i = 1, #entries, 2 do
    table_out[i] = (string.gsub(entries[i], '.', function(c)
        return string.format('%02x', string.byte(c))
    end))
    table_out[i + 1] = entries[i + 1]
end
return {count, redis.call('pttl', KEYS[1]), server_now_ms(), table_out}
