-- Read-write lock: remove the lock whoever holds it, readers and writer alike.
--
-- KEYS[1]  the lock hash NAME
-- KEYS[2]  the channel, redisson_rwlock:{NAME}
-- KEYS[3]  the root of the per-hold timeout keys: "{NAME}", or "NAME" when NAME carries its own hash tag
-- ARGV[1]  the publish command: "publish" or "spublish"
--
-- Returns  1 when a lock was removed (with every read hold's timeout key) and "1" published (wake every waiter),
--          0 when there was none (nothing published).
--
-- Invariant: waiting-writer marks are kept: the writers still wait, and go first.
-- Wire protocol: Redisson's forceUnlock of either side (redisson-protocol.md §4.6) removes only its own mode; dlock's
-- clears the whole lock. Message "1" is Redisson's "wake all".
if redis.call('exists', KEYS[1]) == 0 then
    return 0
end
local all = redis.call('hgetall', KEYS[1])
for i = 1, #all, 2 do
    local field, count = all[i], tonumber(all[i + 1])
    if field ~= 'mode' and count ~= nil and string.sub(field, -6) ~= ':write' then
        for n = count, 1, -1 do
            redis.call('del', KEYS[3] .. ':' .. field .. ':rwlock_timeout:' .. n)
        end
    end
end
redis.call('del', KEYS[1])
redis.call(ARGV[1], KEYS[2], '1')
return 1
