-- Read-write lock: a dlock writer stops waiting without the lock (timeout, interrupt, cancellation).
--
-- KEYS[1]  dlock's waiting-writer marks, dlock_rwlock_writers:{NAME}
-- KEYS[2]  the lock hash NAME
-- ARGV[1]  the writer field, "<client id>:<owner id>:write"
-- ARGV[2]  the publish command: "publish", "spublish", or "both" (PUBLISH and SPUBLISH)
-- ARGV[3]  the channel, redisson_rwlock:{NAME} (not a key: an ACL key pattern must not have to match it)
--
-- Returns  1 when the writer's mark was removed, 0 when it had none.
--
-- Invariant: when the last live mark goes while nobody writes, "0" is published so that dlock readers held back only
-- by the marks enter at once instead of at the end of their sleep.
-- Wire protocol: an extra "0" on redisson_rwlock:{NAME} makes at most one Redisson waiter per client retry once
-- (docs/protocol.md §9.3); Redisson never reads KEYS[1].

--#include notify
--#include drop_expired_marks

if redis.call('zrem', KEYS[1], ARGV[1]) == 0 then
    return 0
end
drop_expired_marks(KEYS[1])
if redis.call('zcard', KEYS[1]) == 0 and redis.pcall('hget', KEYS[2], 'mode') ~= 'write' then
    notify(ARGV[2], ARGV[3], '0')
end
return 1
