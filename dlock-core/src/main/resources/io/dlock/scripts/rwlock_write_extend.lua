-- Read-write lock: extend the lease of one owner's write hold.
--
-- KEYS[1]  the lock hash NAME
-- KEYS[2]  the root of the per-hold timeout keys: "{NAME}", or "NAME" when NAME carries its own hash tag (a prefix
--          of keys, never itself read or written)
-- ARGV[1]  the new lease in ms (> 0)
-- ARGV[2]  the writer field, "<client id>:<owner id>:write"
-- ARGV[3]  the same owner's reader field, "<client id>:<owner id>"
--
-- Returns  1 when the owner holds the write lock: the hash's TTL is now ARGV[1], or longer while one of the owner's
--          own read holds lasts longer;
--          0 when it holds no write hold (never held, released, expired or removed): nothing is changed.
--
-- Invariants: a hold that is gone is never brought back; the hash's TTL stays at least every live hold's, so the read
-- holds of a writer that also reads never outlive the hash that records them.
-- Wire protocol: dlock only; a Redisson peer sees a write-held lock whose TTL changed (docs/protocol.md §1.8).

--#include invalid_lease
--#include write_hold_ttl

local refusal = invalid_lease(ARGV[1])
if refusal then
    return refusal
end
if redis.call('hget', KEYS[1], 'mode') ~= 'write' or redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
    return 0
end
local reads = tonumber(redis.call('hget', KEYS[1], ARGV[3]) or '0') or 0
local timeouts = KEYS[2] .. ':' .. ARGV[3] .. ':rwlock_timeout:'
redis.call('pexpire', KEYS[1], write_hold_ttl(timeouts, reads, tonumber(ARGV[1])))
return 1
