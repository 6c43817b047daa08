-- Any lock kind: remove the lock whoever holds it.
--
-- KEYS[1]  the lock hash
-- ARGV[1]  the publish command: "publish", "spublish", or "both" (PUBLISH and SPUBLISH)
-- ARGV[2]  the message: "0" (wake one waiter) or "1" (wake all, read-write lock)
-- ARGV[3]  the unlock channel (not a key: an ACL key pattern must not have to match it)
--
-- Returns  1 when a lock was removed (and the message published), 0 when there was none; the error of not_a_lock
--          (WRONGTYPE dlock / DLOCK_NOT_A_LOCK dlock) when the key holds something that is not a lock of any kind.
--
-- Invariant: only a lock is removed: a key of another type, or a hash whose fields are not a lock's, is refused
-- with nothing changed and nothing published.
-- Wire protocol: Redisson's forceUnlock (docs/protocol.md §2.4).

--#include notify
--#include not_a_lock

local refusal = not_a_lock(KEYS[1])
if refusal then
    return refusal
end
if redis.call('exists', KEYS[1]) == 0 then
    return 0
end
-- publish first: a publish that fails aborts the script before the lock is removed
notify(ARGV[1], ARGV[3], ARGV[2])
redis.call('del', KEYS[1])
return 1
