-- Any lock kind: remove the lock whoever holds it.
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the unlock channel
-- ARGV[1]  the publish command: "publish" or "spublish"
-- ARGV[2]  the message: "0" (wake one waiter) or "1" (wake all, read-write lock)
--
-- Returns  1 when a lock was removed (and the message published), 0 when there was none.
-- Wire protocol: Redisson's forceUnlock (redisson-protocol.md §2.4).
if redis.call('del', KEYS[1]) == 1 then
    redis.call(ARGV[1], KEYS[2], ARGV[2])
    return 1
end
return 0
