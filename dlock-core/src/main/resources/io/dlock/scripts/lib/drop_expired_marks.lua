-- Fragment drop_expired_marks: the read-write lock's waiting marks (dlock only; waiting_marks) by the server's clock.
--
-- drop_expired_marks(marks) removes from `marks` (dlock_rwlock_writers:{NAME}, a sorted set: waiting writer or reader
-- field -> deadline, server time in ms) every mark whose deadline is not after the server's clock, and returns that
-- clock (Redis TIME, in ms).
--
-- Invariant: a waiter that died while marked holds the other side back for one mark life at most. Wire protocol:
-- Redisson never reads the marks (docs/protocol.md §4.1).

--#include server_now_ms

local function drop_expired_marks(marks)
    local now = server_now_ms()
    redis.call('zremrangebyscore', marks, '-inf', now)
    return now
end
