-- Reentrant lock: hand the lock from its releasing owner straight to another owner of the same client.
--
-- KEYS[1]  the lock hash
-- ARGV[1]  the releasing owner's field, "<client id>:<owner id>"
-- ARGV[2]  the receiving owner's field (same client, another owner id)
-- ARGV[3]  the receiver's lease in ms (> 0): the hash's TTL after this call
-- KEYS[2]  optional, clients built with holdDetails only: the lock's hold record, dlock_hold:{NAME}, rewritten for
--          the receiver (fragment hold_record) when the lock changes hands
-- ARGV[4]  with KEYS[2]: the receiving thread's name
--
-- Returns  1 when the lock changed hands (the releaser's field removed, the receiver's set to 1, TTL = ARGV[3]),
--          0 when the releaser holds more than one acquisition (nothing changed: the caller releases one as usual),
--          nil when the releaser holds nothing (never held, expired, or removed; nothing changed).
--
-- Invariant: the hash has exactly one owner field at every moment; the lock is never free in between, so no other
-- client can take it during the hand-off, and none is woken (nothing is published: the lock stays held).
-- Wire protocol: the result is the layout of a lock that ARGV[2] acquired (docs/protocol.md §2), so Redisson
-- clients see an ordinary held lock and keep waiting for its unlock message.

--#include invalid_lease
--#include hold_record

local refusal = invalid_lease(ARGV[3])
if refusal then
    return refusal
end

local count = redis.call('hget', KEYS[1], ARGV[1])
if count == false then
    return nil
end
if tonumber(count) ~= 1 then
    return 0
end
redis.call('hdel', KEYS[1], ARGV[1])
redis.call('hset', KEYS[1], ARGV[2], 1)
redis.call('pexpire', KEYS[1], ARGV[3])
if KEYS[2] and not hold_record_refusal(KEYS[2]) then
    hold_record(KEYS[2], ARGV[2], ARGV[4], ARGV[3])
end
return 1
