-- Fragment take_queue_head: the first waiter in a fair lock's line takes the lock (Redisson's acquisition from the
-- queue).
--
-- take_queue_head(hash, queue, deadlines, slot, lease) takes the lock hash (NAME), the queue (redisson_lock_queue:{NAME},
-- whose first member is the taker's field), the deadlines (redisson_lock_timeout:{NAME}), the taker's slot in ms and
-- its lease in ms. The head leaves both queue keys, every remaining deadline moves `slot` earlier, and the head becomes
-- the holder with one acquisition and the lease as TTL. Returns nothing.
--
-- Invariant: called only when the lock is free (or was freed by the same script) and the head has a deadline after
-- now (drop_expired_heads ran first); the queue and the deadlines keep the same members.
-- Wire protocol: the keys a Redisson waiter's own acquisition leaves, step for step (docs/protocol.md §3.2): LPOP,
-- ZREM, ZINCRBY -slot for each remaining waiter, HSET field 1, PEXPIRE lease. Used by the waiter's own attempt
-- (fair_acquire) and by a local hand-off (fair_release), so both leave the same state.
local function take_queue_head(hash, queue, deadlines, slot, lease)
    local field = redis.call('lpop', queue)
    redis.call('zrem', deadlines, field)
    local behind = redis.call('zrange', deadlines, 0, -1)
    for i = 1, #behind do
        redis.call('zincrby', deadlines, -slot, behind[i])
    end
    redis.call('hset', hash, field, 1)
    redis.call('pexpire', hash, lease)
end
