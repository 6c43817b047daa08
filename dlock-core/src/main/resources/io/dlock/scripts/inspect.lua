-- Inspection: a read-only snapshot of one lock of any kind, in one round trip.
--
-- KEYS[1]  the lock hash (NAME)
-- KEYS[2]  the fair-lock queue, redisson_lock_queue:{NAME}
-- KEYS[3]  the fair-lock timeouts, redisson_lock_timeout:{NAME}
-- KEYS[4]  the fencing-token counter, redisson_lock_token:{NAME}
--
-- Returns  { type of NAME ("none", "hash", or another type name),
--            PTTL of NAME,
--            HGETALL of NAME when a hash that lock_shaped takes for a lock (flat field/value list), else {},
--            the queue, in order (LRANGE 0 -1), or {} when absent or not a list,
--            the timeouts with scores (ZRANGE 0 -1 WITHSCORES), or {} when absent or not a zset,
--            the token counter as a string, or false,
--            1 when NAME is a hash that lock_shaped takes for a lock, else 0 }
--
-- Invariant: writes nothing, and never answers the fields or values of a key that is not a lock (they may be business
-- data). Wire protocol: reads the layouts of docs/protocol.md §2.1, §3.1, §4.1, §5.1.

--#include lock_shaped

local function type_of(key)
    local t = redis.call('type', key)
    if type(t) == 'table' then
        return t['ok']
    end
    return t
end
local kind = type_of(KEYS[1])
local fields = {}
local is_lock = 0
if kind == 'hash' and lock_shaped(KEYS[1]) then
    fields = redis.call('hgetall', KEYS[1])
    is_lock = 1
end
local queue = {}
if type_of(KEYS[2]) == 'list' then
    queue = redis.call('lrange', KEYS[2], 0, -1)
end
local timeouts = {}
if type_of(KEYS[3]) == 'zset' then
    timeouts = redis.call('zrange', KEYS[3], 0, -1, 'WITHSCORES')
end
local token = false
if type_of(KEYS[4]) == 'string' then
    token = redis.call('get', KEYS[4])
end
return {kind, redis.call('pttl', KEYS[1]), fields, queue, timeouts, token, is_lock}
