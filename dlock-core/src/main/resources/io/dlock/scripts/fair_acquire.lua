-- Fair lock: acquire, re-enter, or take (or keep) a place in the FIFO queue.
--
-- KEYS[1]  the lock hash (NAME)
-- KEYS[2]  the queue, redisson_lock_queue:{NAME}: owner fields of the waiters, first in line first
-- KEYS[3]  the deadlines, redisson_lock_timeout:{NAME}: owner field -> epoch ms after which a waiter at the head
--          counts as gone
-- ARGV[1]  lease in ms (> 0): the hash's TTL after an acquisition
-- ARGV[2]  the owner field, "<client id>:<owner id>"
-- ARGV[3]  the caller's slot in ms (> 0): its client's fairLockWaitTimeout
-- ARGV[4]  the caller's clock, epoch ms (Redisson passes client time too)
-- ARGV[5]  "1" to queue when the lock cannot be taken now, "0" for a single attempt that never queues
-- ARGV[6]  the longest sleep to return, in ms (>= 1)
-- ARGV[7]  the caller's acquisitions its client knows of (held, or still awaiting their reply), before this one;
--          optional (absent: a re-entry counts one more, whatever the hash holds)
-- ARGV[8]  the acquisitions of the owner's hold that its client counts on (granted, not being released); optional
--
-- Returns  nil when the caller now holds the lock (first hold, or one more re-entrant hold; TTL reset to the lease);
--          -4 (HOLD_GONE) when ARGV[8] > 0 but the owner's field is gone: nothing is changed (fragment hold_gone);
--          the error of not_a_lock (DLOCK_NOT_A_LOCK / WRONGTYPE dlock) when the key is there but is not a lock
--          (a business hash): nothing is changed, the caller is refused rather than left waiting;
--          otherwise how long the caller may sleep at most before it attempts again (ms, 1..ARGV[6]):
--            at the head of the queue: the lock's PTTL (the release will wake it earlier);
--            behind others while the lock is held: the lock's PTTL;
--            behind others while the lock is free (the head is on its way, or gone): until the head's deadline,
--            when a head that never comes is dropped; never 0, so waiters do not poll in a loop.
--
-- Invariant: the queue and the deadlines hold the same members; on each attempt the caller's deadline is raised
--            to at least now + (waiters ahead of it + 1) * slot (never lowered), so a live waiter that attempts at
--            least once per slot never reaches the head with a deadline in the past; the lock is taken only when it
--            is free and the caller is first in line (or nobody waits); the hash always has a TTL; empty keys do
--            not exist; after a queued attempt the queue keys live at least one slot past the latest deadline.
-- Wire protocol: Redisson's fair-lock acquire (docs/protocol.md §3.2): the same keys, the same stale-head
--            cleanup (an expired head is dropped from both keys) and the same acquisition: dequeue, then move every
--            remaining deadline earlier by the acquirer's slot, then HSET field 1 and PEXPIRE. Queued waiters get the
--            deadline Redisson's enqueue gives (the last waiter's deadline, else the lock's PTTL, plus the slot), raised
--            on every attempt as above; Redisson's scripts read it as one of their own.

--#include invalid_lease
--#include wrong_type
--#include keyed_read
--#include drop_expired_heads
--#include take_queue_head
--#include add_hold
--#include hold_gone
--#include not_a_lock

local refusal = invalid_lease(ARGV[1])
if refusal then
    return refusal
end
-- the first read is the type check (fragment keyed_read); the caller's count serves the rules below
local count, wrong = keyed_read(LOCK_TYPE_REFUSAL, 'hget', KEYS[1], ARGV[2])
if wrong then
    return wrong
end
if hold_gone(KEYS[1], ARGV[2], tonumber(ARGV[8]), count ~= false) then
    return HOLD_GONE
end

-- The queue keys expire one slot after the latest deadline they hold, so that waiters that died in line cannot
-- leave them behind forever; the TTL is only ever raised (or given to keys that have none, such as keys Redisson's
-- scripts created). Deadlines only grow here: the other scripts lower or remove them, so the TTL set here covers
-- every waiter in line until one of them attempts again and raises it.
local function keep_queue_until_last_deadline(slot, now)
    local last = redis.call('zrange', KEYS[3], -1, -1, 'withscores')
    if #last == 0 then
        return
    end
    local ttl = math.max(tonumber(last[2]) - now, 0) + slot
    for _, key in ipairs({KEYS[2], KEYS[3]}) do
        local current = redis.call('pttl', key)
        if current >= 0 and current < ttl or current == -1 then
            redis.call('pexpire', key, string.format('%.0f', ttl))
        end
    end
end

local field = ARGV[2]
local slot = tonumber(ARGV[3])
local now = tonumber(ARGV[4])
local max_sleep = tonumber(ARGV[6])

-- Drop heads whose deadline has passed (or that have none): they stopped waiting without leaving.
local head, head_deadline = drop_expired_heads(KEYS[2], KEYS[3], now)

local locked = count ~= false or redis.call('exists', KEYS[1]) == 1
if not locked and (not head or head == field) then
    if head then
        take_queue_head(KEYS[1], KEYS[2], KEYS[3], slot, ARGV[1])
    else
        redis.call('hset', KEYS[1], field, 1)
        redis.call('pexpire', KEYS[1], ARGV[1])
    end
    return nil
end

-- A re-entry: one more hold, by the known-count rule.
if count then
    add_hold(KEYS[1], field, count, tonumber(ARGV[7]))
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end

if locked then
    -- busy, unless the key is not a lock at all (a business hash): then refused, never waited for
    local not_lock = hash_not_a_lock(KEYS[1])
    if not_lock then
        return not_lock
    end
end
local pttl = -2
if locked then
    pttl = redis.call('pttl', KEYS[1])
end
local sleep = pttl
if ARGV[5] == '1' then
    local ahead = redis.call('lpos', KEYS[2], field)
    local deadline
    local written = false
    if ahead then
        deadline = tonumber(redis.call('zscore', KEYS[3], field))
        written = deadline ~= nil
        deadline = deadline or 0
    else
        -- Redisson's enqueue: the deadline of the last one in line (else the lock's PTTL) plus the caller's slot
        local last = redis.call('lindex', KEYS[2], -1)
        local last_deadline = last and redis.call('zscore', KEYS[3], last)
        if last_deadline then
            deadline = tonumber(last_deadline) + slot
        else
            deadline = now + pttl + slot
        end
        ahead = redis.call('rpush', KEYS[2], field) - 1
    end
    -- one slot per waiter ahead plus its own, from now; never lowered, so that a Redisson waiter that enqueued
    -- behind the caller keeps at least what it would have behind a Redisson waiter
    local fresh = now + (ahead + 1) * slot
    if fresh > deadline then
        deadline = fresh
        written = false
    end
    if not written then
        redis.call('zadd', KEYS[3], string.format('%.0f', deadline), field)
    end
    keep_queue_until_last_deadline(slot, now)
    if ahead > 0 and not locked then
        sleep = head_deadline - now
    end
end
if sleep < 0 or sleep > max_sleep then
    -- -1: a lock without TTL (never written by dlock or Redisson), -2: not locked (single attempt)
    sleep = max_sleep
elseif sleep < 1 then
    -- a lease in its last millisecond
    sleep = 1
end
return sleep
