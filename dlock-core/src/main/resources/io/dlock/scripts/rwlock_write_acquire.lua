-- Read-write lock: take the write hold (exclusive), or re-enter it.
--
-- KEYS[1]  the lock hash NAME
-- KEYS[2]  the root of the per-hold timeout keys: "{NAME}", or "NAME" when NAME carries its own hash tag
-- KEYS[3]  dlock's waiting marks, dlock_rwlock_writers:{NAME} (sorted set: writer or reader field -> deadline,
--          server time in ms; fragment waiting_marks)
-- ARGV[1]  lease in ms (> 0)
-- ARGV[2]  the writer field, "<client id>:<owner id>:write"
-- ARGV[3]  the same owner's reader field, "<client id>:<owner id>"
-- ARGV[4]  mark life in ms: when the lock is busy (or it is the readers' turn), mark this writer as waiting until
--          now + ARGV[4];
--          0 = do not mark (a single attempt)
-- ARGV[5]  the writer's acquisitions its client knows of (held, or still awaiting their reply), before this one;
--          optional (absent: a re-entry counts one more, whatever the hash holds)
-- ARGV[6]  the same owner's read holds its client knows of (held, or still awaiting their reply); optional. Read
--          holds of the owner above that count can only be left by read attempts whose replies were lost: they are
--          dropped here rather than refusing the write hold as an upgrade
-- ARGV[7]  the acquisitions of the writer's hold that its client counts on (granted, not being released); optional
--
-- Returns  nil when acquired: mode "write", the writer's count incremented, the hash's TTL reset to the lease (on
--          re-entry: to the lease, or longer while one of the owner's own read holds lasts longer), the mark removed;
--          -3 when the owner holds live read holds and no write hold: an upgrade, refused (nothing is changed);
--          -4 (HOLD_GONE) when ARGV[7] > 0 but the writer's field is gone: nothing is changed (fragment hold_gone);
--          the error of not_a_lock (DLOCK_NOT_A_LOCK / WRONGTYPE dlock) when the key is there but is not a lock
--          (a business hash): nothing is changed, the caller is refused rather than left waiting;
--          otherwise, after marking the writer as waiting if asked: the lock's PTTL (-1 if it has no expiry), or while
--          the lock is free but it is the readers' turn (a live reader mark), how long the latest reader mark lasts.
--
-- Invariants: at most one writer field; a writer is never granted while any other owner holds the hash. Re-entry
-- resets the TTL (Redisson adds the lease to it instead). Turns (dlock only, fragment waiting_marks): a free lock is
-- not granted to a writer while a live reader mark exists, so the readers refused by the last write hold get in
-- first.
-- Wire protocol: Redisson's write acquire (docs/protocol.md §4.4); Redisson never reads KEYS[3].

--#include invalid_lease
--#include wrong_type
--#include keyed_read
--#include add_hold
--#include hold_gone
--#include not_a_lock
--#include waiting_marks
--#include write_hold_ttl

local refusal = invalid_lease(ARGV[1])
if refusal then
    return refusal
end
-- the first read is the type check (fragment keyed_read)
local mode, wrong = keyed_read(LOCK_TYPE_REFUSAL, 'hget', KEYS[1], 'mode')
if wrong then
    return wrong
end
if hold_gone(KEYS[1], ARGV[2], tonumber(ARGV[7])) then
    return HOLD_GONE
end

local known_reads = tonumber(ARGV[6])
if mode and known_reads then
    local held = tonumber(redis.call('hget', KEYS[1], ARGV[3]) or '0') or 0
    if held > known_reads then
        local timeouts = KEYS[2] .. ':' .. ARGV[3] .. ':rwlock_timeout:'
        for n = held, known_reads + 1, -1 do
            redis.call('del', timeouts .. n)
        end
        if known_reads > 0 then
            redis.call('hset', KEYS[1], ARGV[3], known_reads)
        else
            redis.call('hdel', KEYS[1], ARGV[3])
        end
        if redis.call('hlen', KEYS[1]) <= 1 then
            -- only "mode" is left: nobody holds the lock
            redis.call('del', KEYS[1])
            mode = nil
        end
    end
end
-- refused (busy, or not this side's turn): marks the writer as waiting if asked, and answers `sleep`
local function wait(sleep)
    local life = tonumber(ARGV[4])
    if life > 0 then
        mark_waiting(KEYS[3], ARGV[2], life)
    end
    return sleep
end
if not mode and redis.call('exists', KEYS[1]) == 0 then
    local now, readers_until = waiting_marks(KEYS[3])
    if readers_until then
        return wait(math.max(1, readers_until - now))
    end
    redis.call('hset', KEYS[1], 'mode', 'write', ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    redis.call('zrem', KEYS[3], ARGV[2])
    return nil
end
local reads = tonumber(redis.call('hget', KEYS[1], ARGV[3]) or '0') or 0
local root = KEYS[2] .. ':' .. ARGV[3] .. ':rwlock_timeout:'
local count = mode == 'write' and redis.call('hget', KEYS[1], ARGV[2])
if count then
    -- a re-entry: one more write hold, by the known-count rule
    add_hold(KEYS[1], ARGV[2], count, tonumber(ARGV[5]))
    redis.call('pexpire', KEYS[1], write_hold_ttl(root, reads, tonumber(ARGV[1])))
    redis.call('zrem', KEYS[3], ARGV[2])
    return nil
end
for n = reads, 1, -1 do
    if redis.call('exists', root .. n) == 1 then
        return -3
    end
end
-- busy, unless the key is not a lock at all (a business hash): then refused, never waited for; the key is a hash
-- (keyed_read) and exists here (a missing one was taken above)
local not_lock = hash_not_a_lock(KEYS[1])
if not_lock then
    return not_lock
end
return wait(redis.call('pttl', KEYS[1]))
