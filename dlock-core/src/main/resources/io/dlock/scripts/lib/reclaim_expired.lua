-- Fragment reclaim_expired: gives back the permits whose lease ran out.
--
-- reclaim_expired(count_key, table_key, available, expired, command, channel) removes from the permit table
-- `table_key` the members `expired` (those whose score, the absolute expiry in epoch ms, is at most the server's
-- clock, as leased_semaphore_keys read them in this call) and adds their number to the count `count_key`, which held
-- `available`; when the count is then above zero it publishes it (decimal) on `channel` with `command` (fragment
-- notify), so that waiters of every client retry. Returns the count after the call. Members scored 922337203685477
-- (Redisson's "no lease") are never among `expired`.
--
-- Invariant: every permit is either in the count or in the table, never both and never neither: a reclaimed member
-- leaves the table in the same call that adds it to the count. Publishes only counts above zero (Redisson's waiters
-- cannot read anything else). Wire protocol: docs/protocol.md §13.2.
--#include announce_permits
local function reclaim_expired(count_key, table_key, available, expired, command, channel)
    if #expired == 0 then
        return available
    end
    available = available + #expired
    announce_permits(command, channel, available)
    for i = 1, #expired, 500 do
        redis.call('zrem', table_key, unpack(expired, i, math.min(i + 499, #expired)))
    end
    redis.call('incrby', count_key, #expired)
    return available
end
