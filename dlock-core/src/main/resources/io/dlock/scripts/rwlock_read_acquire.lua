-- Read-write lock: take one read hold (shared), or re-enter.
--
-- KEYS[1]  the lock hash NAME
-- KEYS[2]  the root of the per-hold timeout keys: "{NAME}", or "NAME" when NAME carries its own hash tag
-- KEYS[3]  dlock's waiting marks, dlock_rwlock_writers:{NAME} (sorted set: writer or reader field -> deadline,
--          server time in ms; fragment waiting_marks)
-- ARGV[1]  lease in ms (> 0) of this hold
-- ARGV[2]  the reader field, "<client id>:<owner id>"
-- ARGV[3]  the same owner's writer field, "<client id>:<owner id>:write"
-- ARGV[4]  the reader's acquisitions its client knows of (held, or still awaiting their reply), before this one;
--          optional (absent: this is one more hold, whatever the hash holds)
-- ARGV[5]  the acquisitions of the reader's hold that its client counts on (granted, not being released); optional
-- ARGV[6]  mark life in ms: when another owner holds the write lock, mark this reader as waiting until now + ARGV[6]
--          (the readers' turn, fragment waiting_marks); 0 or absent = do not mark (a single attempt)
--
-- Returns  -4 (HOLD_GONE) when ARGV[5] > 0 but the reader's field is gone: nothing is changed (fragment hold_gone);
--          the error of not_a_lock (DLOCK_NOT_A_LOCK / WRONGTYPE dlock) when the key is there but is not a lock
--          (a business hash): nothing is changed, the caller is refused rather than left waiting;
--          nil when granted: the reader's count is incremented, a timeout key
--          <KEYS[2]>:<reader field>:rwlock_timeout:<new count> = "1" expires after the lease, and the hash's TTL is
--          raised to the lease if it was shorter, and the reader's waiting mark removed;
--          otherwise the longest sleep in ms before trying again: the lock's PTTL while another owner writes (after
--          marking the reader as waiting if asked), or when the key is not a read-write lock; else how long the
--          latest live writer mark lasts.
--
-- Invariants: readers share only while no other owner writes; the hash's TTL is at least every live hold's.
-- Turns (dlock only, fragment waiting_marks): a new reader waits while a live writer mark exists, unless a live
-- reader mark exists (the readers' turn); a re-entering reader and the write holder itself never wait for marks (they
-- are what the writers wait for). Marks whose deadline passed are dropped here, so a crashed writer holds readers back
-- for one mark life at most.
-- Wire protocol: Redisson's read acquire (docs/protocol.md §4.2): fields, "mode", timeout key names and TTL
-- rule are the same; Redisson never reads KEYS[3].

--#include invalid_lease
--#include wrong_type
--#include keyed_read
--#include waiting_marks
--#include add_hold
--#include hold_gone
--#include not_a_lock

local refusal = invalid_lease(ARGV[1])
if refusal then
    return refusal
end
-- the first read is the type check (fragment keyed_read): a key that is not a hash is refused here
local mode, wrong = keyed_read(LOCK_TYPE_REFUSAL, 'hget',
        KEYS[1], 'mode')
if wrong then
    return wrong
end
local own = redis.call('hget', KEYS[1], ARGV[2])
if hold_gone(KEYS[1], ARGV[2], tonumber(ARGV[5]), own ~= false) then
    return HOLD_GONE
end
local present = mode ~= false or own ~= false or redis.call('exists', KEYS[1]) == 1

-- A key that is not a lock at all (a business hash) is refused, never waited for nor joined. The owner's own field
-- means a lock this owner holds.
if own == false and present then
    local not_lock = hash_not_a_lock(KEYS[1])
    if not_lock then
        return not_lock
    end
end

-- whether the marks may hold this reader's mark (unknown unless waiting_marks read them)
local marked = true
if mode == 'write' then
    if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
        local life = tonumber(ARGV[6]) or 0
        if life > 0 then
            mark_waiting(KEYS[3], ARGV[2], life)
        end
        return redis.call('pttl', KEYS[1])
    end
    -- the write holder takes a read hold as well
elseif mode == 'read' and own then
    -- re-entry of a reader
elseif mode == 'read' or not present then
    local now, readers_until, writers_until, any = waiting_marks(KEYS[3])
    if writers_until and not readers_until then
        return math.max(1, writers_until - now)
    end
    marked = any
    if not mode then
        redis.call('hset', KEYS[1], 'mode', 'read')
    end
else
    -- a hash without "mode": some other kind of lock under this name
    return redis.call('pttl', KEYS[1])
end
local root = KEYS[2] .. ':' .. ARGV[2] .. ':rwlock_timeout:'
local known = tonumber(ARGV[4])
local current = tonumber(own or '0') or 0
if known and current > known then
    -- holds above what the client knows can only come from attempts of this owner whose replies were lost: this
    -- acquisition is hold known + 1 (add_hold; its timeout key is set again below), and any further ones are dropped
    for n = current, known + 2, -1 do
        redis.call('del', root .. n)
    end
end
local count = add_hold(KEYS[1], ARGV[2], current, known)
redis.call('set', root .. count, '1', 'px', ARGV[1])
if redis.call('pttl', KEYS[1]) < tonumber(ARGV[1]) then
    redis.call('pexpire', KEYS[1], ARGV[1])
end
if marked then
    redis.call('zrem', KEYS[3], ARGV[2])
end
return nil
