-- Fragment waiting_marks: whose turn it is on a read-write lock, by dlock's waiting marks (dlock only). One rule, in
-- one place, for every script that grants or hands over the lock (phase-fair; docs/protocol.md §4.1):
--
--   * the readers' turn: while a live reader mark exists, no dlock writer is granted a free lock and no write lock is
--     handed from one writer to another, so the next write release lets the readers in; every dlock reader may then
--     enter while the lock is not write-held, whatever writer marks exist;
--   * the writers' turn: otherwise, while a live writer mark exists, new dlock readers wait (a re-entering reader and
--     the write holder itself never do), so the read holds in place end and a writer gets in.
--
-- The marks live in one sorted set, dlock_rwlock_writers:{NAME}: member -> deadline (server time, ms). A waiting
-- writer's mark is its writer field ("<client id>:<owner id>:write"), left on every failed attempt of a writer that
-- may wait; a waiting reader's mark is its reader field ("<client id>:<owner id>"), left only by a reader refused
-- because another owner holds the write lock (a reader held back by writer marks alone leaves none: otherwise readers
-- arriving while others read would take every turn and starve the writers). A mark goes with its owner's grant, its
-- give-up (rwlock_withdraw_mark) or its deadline: a crashed waiter holds the other side back for one mark life at most.
--
-- waiting_marks(marks) drops expired marks and returns the server clock (ms), the latest live reader mark's deadline
-- (nil when none), the latest live writer mark's deadline (nil when none) and whether the set had any mark. With no
-- mark at all (the common case: nobody waits) it costs one ZRANGE and returns nil for the clock, which no caller then
-- needs; TIME and ZREMRANGEBYSCORE run only when there are marks, the latter only when one has expired.
-- mark_waiting(marks, field, life) marks `field` as waiting for `life` ms from now and lets the set expire with its
-- latest mark.
-- is_writer_mark(member) tells a writer's mark from a reader's.
--
-- Wire protocol: Redisson never reads the marks; its readers and writers keep their own behaviour (§4.1).

--#include drop_expired_marks

local function is_writer_mark(member)
    return string.sub(member, -6) == ':write'
end

local function waiting_marks(marks)
    local all = redis.call('zrange', marks, 0, -1, 'withscores')
    if #all == 0 then
        return nil, nil, nil, false
    end
    local now = server_now_ms()
    local reader_until, writer_until
    local expired = false
    -- ascending by deadline: the last live one of each kind is its latest
    for i = 1, #all, 2 do
        local deadline = tonumber(all[i + 1])
        if deadline <= now then
            expired = true
        elseif is_writer_mark(all[i]) then
            writer_until = deadline
        else
            reader_until = deadline
        end
    end
    if expired then
        redis.call('zremrangebyscore', marks, '-inf', now)
    end
    return now, reader_until, writer_until, true
end

local function mark_waiting(marks, field, life)
    local now = drop_expired_marks(marks)
    redis.call('zadd', marks, now + life, field)
    local latest = redis.call('zrange', marks, -1, -1, 'withscores')
    redis.call('pexpire', marks, math.max(1, tonumber(latest[2]) - now))
end
