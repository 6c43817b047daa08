-- Fragment write_hold_ttl: the TTL a read-write lock hash takes from its write hold.
--
-- write_hold_ttl(timeouts, reads, lease) returns `lease` (ms, a number), or longer while one of the writer's own read
-- holds lasts longer: `timeouts` is the prefix of their timeout keys, "<root>:<reader field>:rwlock_timeout:", and
-- `reads` how many there are (the count of the writer's reader field). Writes nothing.
--
-- Invariant: the hash's TTL is at least every live hold's, so the read holds of a writer that also reads never
-- outlive the hash that records them. Wire protocol: the TTL of the hash, docs/protocol.md §4.1.
local function write_hold_ttl(timeouts, reads, lease)
    local ttl = lease
    for n = reads, 1, -1 do
        local pttl = redis.call('pttl', timeouts .. n)
        if pttl > ttl then
            ttl = pttl
        end
    end
    return ttl
end
