-- Extend a held lease: one owner's hold of a lock hash (plain, fenced and fair lock) expires a given time from now.
--
-- KEYS[1]  the lock hash (the lock's name)
-- ARGV[1]  the new lease in ms (> 0)
-- ARGV[2]  the owner field, "<client id>:<owner id>"
-- KEYS[2]  optional: the hold's record, a leader election's dlock_leader:{NAME} or a plain lock's dlock_hold:{NAME},
--          which gets the same TTL when it is the owner's (fragment holder_record)
--
-- Returns  1 when the owner holds the lock: the hash's TTL is now ARGV[1] (also when that is shorter than it was);
--          0 when the owner holds nothing (never held, released, expired or removed): nothing is changed.
--
-- Invariants: a hold that is gone is never brought back, and only a hash holding the owner's field is touched; the
-- hash keeps a TTL. The client counts the new lease from when it sent this call (no later than Redis ran it), so it
-- never believes in the hold longer than Redis keeps it.
-- Wire protocol: dlock only; a Redisson peer sees a held lock whose TTL changed (docs/protocol.md §1.8).

--#include invalid_lease
--#include holder_record

local refusal = invalid_lease(ARGV[1])
if refusal then
    return refusal
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
    return 0
end
redis.call('pexpire', KEYS[1], ARGV[1])
if holder_record(KEYS[2], ARGV[2]) then
    redis.call('pexpire', KEYS[2], ARGV[1])
end
return 1
