-- Fragment longest_live_read: the TTL a read-write lock hash needs for its read holds.
--
-- longest_live_read(hash, root, own_field, own_count) returns the longest PTTL in ms among the timeout keys of the
-- read holds of every owner (dlock's and Redisson's) in `hash`, as read_hold_timeouts lists them (own_field and
-- own_count, optional, count only the first own_count holds of own_field); 0 when none is live. Writes nothing.
--
-- Wire protocol: the hash of a read-held lock lives as long as its longest live read hold (docs/protocol.md §4.1).
--#include read_hold_timeouts
local function longest_live_read(hash, root, own_field, own_count)
    local longest = 0
    for _, key in ipairs(read_hold_timeouts(hash, root, own_field, own_count)) do
        local pttl = redis.call('pttl', key)
        if pttl > longest then
            longest = pttl
        end
    end
    return longest
end
