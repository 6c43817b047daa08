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
-- ARGV[6]  the owner's hold count after this call as its client knows it (its acquisitions, including attempts
--          still awaiting their reply, minus this one), or "-1" when the client knows of none: then one is taken
--          off; optional (absent: "-1")
-- ARGV[7]  "release" (one hold less: the unlock, the default), or "drop-unknown" (an acquisition gave up after an
--          attempt whose reply never came: only a count above ARGV[6], left by that attempt, is brought down to it)
-- ARGV[8]  optional, with ARGV[9..]: the slot in ms of the waiters named there (their client's fairLockWaitTimeout)
-- ARGV[9..] optional pairs (field, lease in ms > 0): waiters of the caller's client that wait for this release inside
--          their client (a local hand-off). When the last hold goes and, after the stale-head cleanup, the first in
--          line is one of them, the lock passes to it in this call, as its own acquisition would take it
--          (take_queue_head); nothing is published.
--
-- Returns  2 + i when the last hold went and the lock passed to the waiter of pair i (0-based) of ARGV[9..],
--          1 when the last hold was released (hash deleted, "0" published on the channel of the head of the queue,
--          if any), 0 when holds remain (count set to ARGV[6], TTL reset to ARGV[2]) or nothing was to be dropped,
--          nil when the owner holds nothing
--          (never held, expired or removed; the caller raises IllegalMonitorStateException). When the owner holds
--          nothing and the lock is free, the head of the queue is woken all the same: it may be sleeping on a
--          lease that has already run out.
--
-- Invariant: never touches another owner's hold; the count after the call is the one the client knows, so a lost
--            reply of an earlier acquisition cannot keep the lock held after the owner's last unlock; only the head
--            of the queue is woken, after expired heads are dropped, so the wake-up reaches a waiter that can take the
--            lock. A hand-off goes to the first in line only, so a local waiter never overtakes one of another
--            client that queued before it; the hash is never free in between. The publish runs before the lock is freed (only expired heads may have been dropped by then, as
--            any later script would drop them).
-- Wire protocol: Redisson's fair-lock unlock (docs/protocol.md §3.4), except that releasing a lock the owner
--            does not hold answers nil even when the lock is free (Redisson answers 1 there, silently). No unlock
--            latch: Redisson never reads latches it did not write (§1.5, §9.8).

--#include notify
--#include invalid_lease
--#include take_queue_head
--#include drop_expired_heads
--#include holds_left
--#include keep_holds

local field = ARGV[1]
local now = tonumber(ARGV[3])

local head = drop_expired_heads(KEYS[2], KEYS[3], now)

local count = redis.call('hget', KEYS[1], field)
if count == false then
    if head and redis.call('exists', KEYS[1]) == 0 then
        notify(ARGV[4], ARGV[5] .. ':' .. head, '0')
    end
    return nil
end
count = tonumber(count)
local remaining = holds_left(count, ARGV[6], ARGV[7])
if not remaining then
    return 0
end
if remaining > 0 then
    keep_holds(KEYS[1], field, count, remaining, ARGV[2])
    return 0
end
if head then
    for i = 9, #ARGV, 2 do
        if ARGV[i] == head then
            local refusal = invalid_lease(ARGV[i + 1])
            if refusal then
                return refusal
            end
            redis.call('del', KEYS[1])
            take_queue_head(KEYS[1], KEYS[2], KEYS[3], tonumber(ARGV[8]), ARGV[i + 1])
            return 2 + (i - 9) / 2
        end
    end
    -- publish first: a publish that fails aborts the script before the lock is freed
    notify(ARGV[4], ARGV[5] .. ':' .. head, '0')
end
redis.call('del', KEYS[1])
return 1
