-- Fair lock: release one hold and wake the first waiter in line.
--
-- KEYS[1]  the lock hash (NAME)
-- KEYS[2]  the queue, redisson_lock_queue:{NAME}
-- KEYS[3]  the deadlines, redisson_lock_timeout:{NAME}
-- ARGV[1]  the owner field, "<client id>:<owner id>"
-- ARGV[2]  lease in ms to set when holds remain (the owner's current lease)
-- ARGV[3]  the caller's clock, epoch ms
-- ARGV[4]  the publish command: "publish", "spublish", or "both" (PUBLISH and SPUBLISH)
-- ARGV[5]  the channel prefix, redisson_lock__channel:{NAME}; a waiter's channel is prefix .. ":" .. its field
--
-- Returns  1 when the last hold was released (hash deleted, "0" published on the channel of the head of the queue,
--          if any), 0 when holds remain (count decremented, TTL reset to ARGV[2]), nil when the owner holds nothing
--          (never held, expired or removed; the caller raises IllegalMonitorStateException). When the owner holds
--          nothing and the lock is free, the head of the queue is woken all the same: it may be sleeping on a
--          lease that has already run out.
--
-- Invariant: never touches another owner's hold; only the head of the queue is woken, after expired heads are
--            dropped, so the wake-up reaches a waiter that can take the lock. The publish runs before the lock is
--            freed (only expired heads may have been dropped by then, as any later script would drop them).
-- Wire protocol: Redisson's fair-lock unlock (redisson-protocol.md §3.4), except that releasing a lock the owner
--            does not hold answers nil even when the lock is free (Redisson answers 1 there, silently). No unlock
--            latch: Redisson never reads latches it did not write (§1.5, §9.8).

-- Publishes on a channel; the command "both" sends PUBLISH and SPUBLISH (a cluster with sharded pub/sub, where
-- Redisson may listen with either), anything else is called as it is.
local function notify(command, channel, message)
    if command == 'both' then
        redis.call('publish', channel, message)
        redis.call('spublish', channel, message)
    else
        redis.call(command, channel, message)
    end
end

local field = ARGV[1]
local now = tonumber(ARGV[3])

local head = redis.call('lindex', KEYS[2], 0)
while head do
    local score = redis.call('zscore', KEYS[3], head)
    if score and tonumber(score) > now then
        break
    end
    redis.call('zrem', KEYS[3], head)
    redis.call('lpop', KEYS[2])
    head = redis.call('lindex', KEYS[2], 0)
end

if redis.call('hexists', KEYS[1], field) == 0 then
    if head and redis.call('exists', KEYS[1]) == 0 then
        notify(ARGV[4], ARGV[5] .. ':' .. head, '0')
    end
    return nil
end
if tonumber(redis.call('hget', KEYS[1], field)) > 1 then
    redis.call('hincrby', KEYS[1], field, -1)
    redis.call('pexpire', KEYS[1], ARGV[2])
    return 0
end
-- publish first: a publish that fails aborts the script before the lock is freed
if head then
    notify(ARGV[4], ARGV[5] .. ':' .. head, '0')
end
redis.call('del', KEYS[1])
return 1
