-- Fragment longest_live_read: the TTL a read-write lock hash needs for its read holds.
--
-- longest_live_read(hash, root, own_field, own_count, settled) returns (ttl, kept): ttl is the longest PTTL in ms
-- among the timeout keys of the read holds of every owner (dlock's and Redisson's) in `hash`, as read_hold_timeouts
-- lists them (own_field and own_count, optional, count only the first own_count holds of own_field), 0 when none is
-- live (and no PTTL is read when no hold is listed). Writes nothing.
--
-- settled (optional, for a read release only): the hash's TTL is known to be at least every live hold's, no hold was
-- lengthened since it was set, and it is the longest hold's after every release, renewal and write release (a read
-- acquisition raises it to its lease, never lowers it). Then the scan may stop early: once one listed hold shows a
-- PTTL equal to the hash's own (within READ_TTL_SLACK_MS), no hold can be longer, the full scan would find the hash's
-- TTL, and (that TTL, true) is returned: kept = the caller need not set it again. When no hold proves it (the longest
-- hold was the one released, or the hash outlives every hold, as a Redisson write release that keeps read holds
-- leaves it) every hold is read and the exact longest returned, as without settled. A hold longer than the hash never
-- stops the scan. A renewal must not pass settled: it has just lengthened holds.
--
-- Holds are read last field first: HGETALL lists a small hash in insertion order, so the newest reader, the likeliest
-- to hold the longest lease, comes first.
--
-- Wire protocol: the hash of a read-held lock lives as long as its longest live read hold (docs/protocol.md §4.1,
-- §4.3).
--#include read_hold_timeouts

-- How far below the hash's PTTL a hold's PTTL may be and still prove it: Redis 6.2 reads the clock per command, so a
-- hold key and the hash set by one script may expire 1 ms apart. The hash then outlives that hold by at most this.
local READ_TTL_SLACK_MS = 2

local function longest_live_read(hash, root, own_field, own_count, settled)
    local keys = read_hold_timeouts(hash, root, own_field, own_count)
    local current = (settled and #keys > 0) and redis.call('pttl', hash) or 0
    local longest = 0
    for i = #keys, 1, -1 do
        local pttl = redis.call('pttl', keys[i])
        if settled and pttl > 0 and pttl <= current and pttl >= current - READ_TTL_SLACK_MS then
            return current, true
        end
        if pttl > longest then
            longest = pttl
        end
    end
    return longest, false
end
