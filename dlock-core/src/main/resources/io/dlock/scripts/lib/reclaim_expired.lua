-- Fragment reclaim_expired: gives back the permits whose lease ran out.
--
-- reclaim_expired(count_key, table_key, now, command, channel) removes every member of the permit table `table_key`
-- whose score (absolute expiry, epoch ms) is at most `now` and adds their number to the count `count_key`; when the
-- count is then above zero it publishes it (decimal) on `channel` with `command` (fragment notify), so that waiters
-- of every client retry. Returns the count after the call. Members scored 922337203685477 (Redisson's "no lease")
-- are never reclaimed.
--
-- Invariant: every permit is either in the count or in the table, never both and never neither: a reclaimed member
-- leaves the table in the same call that adds it to the count. Publishes only counts above zero (Redisson's waiters
-- cannot read anything else). Wire protocol: docs/protocol.md §13.2.
--#include announce_permits
local function reclaim_expired(count_key, table_key, now, command, channel)
    local expired = redis.call('zrangebyscore', table_key, 0, now)
    local available = tonumber(redis.call('get', count_key) or '0')
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
