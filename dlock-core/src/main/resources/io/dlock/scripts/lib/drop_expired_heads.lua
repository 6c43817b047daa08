-- Fragment drop_expired_heads: the fair lock's stale-head cleanup, run by every fair-lock script before it reads the
-- head of the queue.
--
-- drop_expired_heads(queue, deadlines, now) takes the queue (redisson_lock_queue:{NAME}, a list of owner fields, first
-- in line first), the deadlines (redisson_lock_timeout:{NAME}, owner field -> epoch ms) and the caller's clock in
-- epoch ms. It removes from both keys every head whose deadline is not after `now`, or that has none: that waiter
-- stopped waiting without leaving. Returns the first head still waiting and its deadline, or nil when nobody waits.
--
-- Invariant: afterwards the head of the queue, if any, has a deadline after `now`; waiters behind it are untouched.
-- Wire protocol: Redisson's own cleanup of expired heads (docs/protocol.md §3.2), key for key.
local function drop_expired_heads(queue, deadlines, now)
    local head = redis.call('lindex', queue, 0)
    while head do
        local deadline = redis.call('zscore', deadlines, head)
        if deadline and tonumber(deadline) > now then
            return head, tonumber(deadline)
        end
        redis.call('zrem', deadlines, head)
        redis.call('lpop', queue)
        head = redis.call('lindex', queue, 0)
    end
    return nil
end
