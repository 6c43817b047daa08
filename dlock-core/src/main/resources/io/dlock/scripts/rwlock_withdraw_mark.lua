-- Read-write lock: a dlock writer or reader stops waiting without the lock (timeout, interrupt, cancellation) and
-- takes its waiting mark back.
--
-- KEYS[1]  dlock's waiting marks, dlock_rwlock_writers:{NAME} (fragment waiting_marks)
-- KEYS[2]  the lock hash NAME
-- ARGV[1]  the waiter's mark: its writer field, "<client id>:<owner id>:write", or its reader field,
--          "<client id>:<owner id>"
-- ARGV[2]  the publish command: "publish", "spublish", or "both" (PUBLISH and SPUBLISH)
-- ARGV[3]  the channel, redisson_rwlock:{NAME} (not a key: an ACL key pattern must not have to match it)
--
-- Returns  1 when the mark was removed, 0 when there was none.
--
-- Invariant: when the last live mark of the waiter's side goes while nobody writes, "0" is published so that dlock
-- waiters of the other side held back only by those marks (readers by writer marks, writers by reader marks) enter
-- at once instead of at the end of their sleep.
-- Wire protocol: an extra "0" on redisson_rwlock:{NAME} makes at most one Redisson waiter per client retry once
-- (docs/protocol.md §9.3); Redisson never reads KEYS[1].

--#include notify
--#include waiting_marks

if redis.call('zrem', KEYS[1], ARGV[1]) == 0 then
    return 0
end
local _, readers_until, writers_until = waiting_marks(KEYS[1])
local side_left = readers_until
if is_writer_mark(ARGV[1]) then
    side_left = writers_until
end
if not side_left and redis.pcall('hget', KEYS[2], 'mode') ~= 'write' then
    notify(ARGV[2], ARGV[3], '0')
end
return 1
