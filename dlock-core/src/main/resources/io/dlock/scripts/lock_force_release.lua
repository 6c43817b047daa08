-- Any lock kind: remove the lock whoever holds it.
--
-- KEYS[1]  the lock hash
-- ARGV[1]  the publish command: "publish", "spublish", or "both" (PUBLISH and SPUBLISH)
-- ARGV[2]  the message: "0" (wake one waiter) or "1" (wake all, read-write lock)
-- ARGV[3]  the unlock channel (not a key: an ACL key pattern must not have to match it)
--
-- Returns  1 when a lock was removed (and the message published), 0 when there was none.
-- Wire protocol: Redisson's forceUnlock (docs/protocol.md §2.4).

--#include notify

-- A key of another type is not a lock: refused with nothing changed (never deleted as if it were one).
local key_type = redis.call('type', KEYS[1])['ok']
if key_type == 'hash' then
    -- publish first: a publish that fails aborts the script before the lock is removed
    notify(ARGV[1], ARGV[3], ARGV[2])
    redis.call('del', KEYS[1])
    return 1
end
if key_type ~= 'none' then
    return redis.error_reply('WRONGTYPE dlock: the key holds a ' .. key_type .. ', not a lock; nothing was changed')
end
return 0
