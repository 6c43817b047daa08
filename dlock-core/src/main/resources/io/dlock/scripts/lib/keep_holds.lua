-- Fragment keep_holds: the end of a release after which the owner still holds the lock.
--
-- keep_holds(hash, field, count, left, ttl) brings `field` in `hash` from `count` to `left` holds (left >= 1; written
-- only when it differs) and sets the hash's TTL to `ttl` ms (the owner's current lease, as the release was told).
--
-- Invariant: touches no other owner's field, and the hash keeps a TTL. Wire protocol: docs/protocol.md §1.7.
local function keep_holds(hash, field, count, left, ttl)
    if left ~= count then
        redis.call('hset', hash, field, left)
    end
    redis.call('pexpire', hash, ttl)
end
