-- Fair lock: remove the lock whoever holds it and wake the first waiter in line.
--
-- KEYS[1]  the lock hash (NAME)
-- KEYS[2]  the queue, redisson_lock_queue:{NAME}
-- KEYS[3]  the deadlines, redisson_lock_timeout:{NAME}
-- ARGV[1]  the caller's clock, epoch ms
-- ARGV[2]  the publish command: "publish", "spublish", or "both" (PUBLISH and SPUBLISH)
-- ARGV[3]  the channel prefix, redisson_lock__channel:{NAME}
--
-- Returns  1 when a lock was removed (and "0" published on the channel of the head of the queue, if any),
--          0 when there was none; the error of not_a_lock (WRONGTYPE dlock / DLOCK_NOT_A_LOCK dlock) when the key
--          holds something that is not a lock of any kind.
--
-- Invariant: the queue is kept (waiters keep their places); expired heads are dropped before the wake-up. Only a
-- lock is removed: a key of another type, or a hash whose fields are not a lock's, is refused with nothing changed.
-- Wire protocol: Redisson's fair-lock forceUnlock (docs/protocol.md §3.5).

--#include notify
--#include drop_expired_heads
--#include not_a_lock

local refusal = not_a_lock(KEYS[1])
if refusal then
    return refusal
end

local now = tonumber(ARGV[1])

local head = drop_expired_heads(KEYS[2], KEYS[3], now)

-- publish first: a publish that fails aborts the script before the lock is removed
if redis.call('exists', KEYS[1]) == 1 then
    if head then
        notify(ARGV[2], ARGV[3] .. ':' .. head, '0')
    end
    redis.call('del', KEYS[1])
    return 1
end
return 0
