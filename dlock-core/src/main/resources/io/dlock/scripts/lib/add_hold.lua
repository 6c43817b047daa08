-- Fragment add_hold: one more acquisition of a lock the owner may already hold (the known-count rule).
--
-- add_hold(hash, field, count, known) adds one hold of `field` in `hash` and returns the new count. `count` is the
-- field's value before this call (nil or false when absent); `known` is how many acquisitions of this owner its client
-- knows of before this one (held, or still awaiting their reply), or nil when the client did not say.
--
-- Invariant: a count above `known` can only come from an attempt of this owner that ran but whose reply was lost
-- (command timeout, cut connection): this acquisition is that one, so the count becomes known + 1 (HSET), never more
-- than the client knows, never less than the acquisitions it still counts on. Otherwise HINCRBY by 1.
-- Wire protocol: Redisson sends no known count and reads nothing this leaves (docs/protocol.md §1.7).
local function add_hold(hash, field, count, known)
    if count and known and tonumber(count) > known then
        redis.call('hset', hash, field, known + 1)
        return known + 1
    end
    return redis.call('hincrby', hash, field, 1)
end
