-- Read-write lock: remove the lock whoever holds it, if it is held in the mode of the side that asks.
--
-- KEYS[1]  the lock hash NAME
-- KEYS[2]  the root of the per-hold timeout keys: "{NAME}", or "NAME" when NAME carries its own hash tag (a prefix
--          of keys, never itself read or written)
-- ARGV[1]  the publish command: "publish", "spublish", or "both" (PUBLISH and SPUBLISH)
-- ARGV[2]  the side's mode: "read" or "write"
-- ARGV[3]  the channel, redisson_rwlock:{NAME} (not a key: an ACL key pattern must not have to match it)
--
-- Returns  1 when the lock was held in mode ARGV[2] and was removed (with every read hold's timeout key) and "1"
--          published (wake every waiter); 0 when it is not held or held in the other mode (nothing changed, nothing
--          published); the error of not_a_lock (WRONGTYPE dlock / DLOCK_NOT_A_LOCK dlock) when the key holds
--          something that is not a lock of any kind (a lock of another kind answers 0).
--
-- Invariant: only a lock is removed: a key of another type, or a hash whose fields are not a lock's, is refused
-- with nothing changed and nothing published; a read hold's timeout key is deleted only while it is a string. Each
-- side removes only its own mode, so a read-held lock survives writeLock().forceUnlock() and a write-held one (the
-- writer's own read holds included) survives readLock().forceUnlock(). Waiting-writer marks are kept: the writers
-- still wait, and go first.
-- Wire protocol: Redisson's forceUnlock of either side (docs/protocol.md §4.6) removes only its own mode too;
-- Redisson leaves the read holds' timeout keys to expire, dlock deletes them. Message "1" is Redisson's "wake all".

--#include notify
--#include read_hold_timeouts
--#include not_a_lock

local refusal = not_a_lock(KEYS[1])
if refusal then
    return refusal
end
if redis.call('hget', KEYS[1], 'mode') ~= ARGV[2] then
    return 0
end
-- publish first: a publish that fails aborts the script before the lock is removed
notify(ARGV[1], ARGV[3], '1')
for _, key in ipairs(read_hold_timeouts(KEYS[1], KEYS[2])) do
    if redis.call('type', key)['ok'] == 'string' then
        redis.call('del', key)
    end
end
redis.call('del', KEYS[1])
return 1
