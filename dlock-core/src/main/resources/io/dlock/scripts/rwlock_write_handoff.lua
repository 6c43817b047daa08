-- Read-write lock: hand the write lock from its releasing writer straight to a waiting writer of the same client.
--
-- KEYS[1]  the lock hash NAME
-- KEYS[2]  dlock's waiting-writer marks, dlock_rwlock_writers:{NAME}
-- ARGV[1]  the releasing writer field, "<client id>:<owner id>:write"
-- ARGV[2]  the releasing owner's reader field, "<client id>:<owner id>"
-- ARGV[3]  the receiving writer field (same client, another owner id), "<client id>:<owner id>:write"
-- ARGV[4]  the receiving owner's reader field
-- ARGV[5]  the receiver's lease in ms (> 0): the hash's TTL after this call
--
-- Returns  1 when the write lock changed hands (the releaser's field removed, the receiver's set to 1, mode still
--          "write", TTL = ARGV[5], the receiver's waiting mark removed),
--          0 when nothing changed and the caller releases as usual: the releaser holds more than one write
--          acquisition, or read holds of its own (its release is a downgrade that lets readers in), or the receiver
--          has a read field (left by an attempt whose reply was lost: its own attempt sorts that out),
--          nil when the releaser holds no write hold (never held, expired, or removed; nothing changed).
--
-- Invariant: the hash is in "write" mode with exactly one writer field at every moment; it is never free in
-- between, so no other client (reader or writer) can enter during the hand-off, and nothing is published.
-- Wire protocol: the result is the layout of a write lock that ARGV[3] acquired itself (docs/protocol.md §4), so
-- Redisson clients see an ordinary write hold and keep waiting for its unlock message.

--#include invalid_lease

local refusal = invalid_lease(ARGV[5])
if refusal then
    return refusal
end
if redis.call('hget', KEYS[1], 'mode') ~= 'write' then
    return nil
end
local count = redis.call('hget', KEYS[1], ARGV[1])
if count == false then
    return nil
end
if tonumber(count) ~= 1 or redis.call('hexists', KEYS[1], ARGV[2]) == 1
        or redis.call('hexists', KEYS[1], ARGV[4]) == 1 then
    return 0
end
redis.call('hdel', KEYS[1], ARGV[1])
redis.call('hset', KEYS[1], ARGV[3], 1)
redis.call('pexpire', KEYS[1], ARGV[5])
redis.call('zrem', KEYS[2], ARGV[3])
return 1
