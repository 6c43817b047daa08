-- Fair lock: a waiter leaves the queue without the lock (timed out, interrupted, cancelled, failed).
--
-- KEYS[1]  the lock hash (NAME)
-- KEYS[2]  the queue, redisson_lock_queue:{NAME}
-- KEYS[3]  the deadlines, redisson_lock_timeout:{NAME}
-- ARGV[1]  the owner field of the waiter that leaves
-- ARGV[2]  its slot in ms, as passed to fair_acquire
-- ARGV[3]  the caller's clock, epoch ms
-- ARGV[4]  the publish command: "publish", "spublish", or "both" (PUBLISH and SPUBLISH)
-- ARGV[5]  the channel prefix, redisson_lock__channel:{NAME}
--
-- Returns  1 when the waiter was in the queue (now removed), 0 when it was not.
--
-- Invariant: the waiters behind it keep their order and move one slot earlier; when it was first in line (or had
--            already been dropped as expired) and the lock is free, the new first in line is woken: nobody else
--            would tell it that its turn has come.
-- Wire protocol: Redisson's acquireFailed (docs/protocol.md §3.3): every deadline behind the waiter moves
--            earlier by its slot, then it is removed from both keys. The wake-up of the new head is an addition;
--            it is the usual "0" on that waiter's own channel, which a Redisson waiter treats as an unlock.

--#include notify
--#include drop_expired_heads

local field = ARGV[1]
local slot = tonumber(ARGV[2])
local now = tonumber(ARGV[3])

drop_expired_heads(KEYS[2], KEYS[3], now)
local position = redis.call('lpos', KEYS[2], field)
redis.call('zrem', KEYS[3], field)
if position then
    local behind = redis.call('lrange', KEYS[2], position + 1, -1)
    for i = 1, #behind do
        redis.call('zincrby', KEYS[3], -slot, behind[i])
    end
    redis.call('lrem', KEYS[2], 0, field)
end
-- First in line (or already dropped as expired) while the lock is free: the next one may not know its turn came.
if (not position or position == 0) and redis.call('exists', KEYS[1]) == 0 then
    local head = drop_expired_heads(KEYS[2], KEYS[3], now)
    if head then
        notify(ARGV[4], ARGV[5] .. ':' .. head, '0')
    end
end
if position then
    return 1
end
return 0
