-- Watchdog: renew many holds in one call, or read them back (fixed-lease holds, whose TTL another client may have
-- changed: a PEXPIRE).
--
-- KEYS[i]    a lock hash
-- ARGV[1]    the new lease in ms; 0 to change nothing and only read
-- ARGV[i+1]  the owner field whose hold in KEYS[i] is renewed
-- KEYS[n+i]  optional (n = #ARGV - 1, the number of holds; all or none): the record of the hold in KEYS[i] (a plain
--            lock's dlock_hold:{NAME}), which gets the hash's PTTL after the call when it is the owner's (fragment
--            holder_record); a client built with holdDetails sends them
--
-- Returns  a list with, for each i, when the hold exists, the hash's PTTL after the call (at least ARGV[1]; -1 when
--          the hash has no TTL), 0 when the hold is gone (or the key is no longer a hash): the owner has lost it.
--
-- Invariants: a hold that is gone is never brought back; only hashes holding the owner's field are extended; a TTL
-- is never shortened (a watchdog hold re-entered with a longer fixed lease keeps that lease: the client's view of
-- the hold, which a renewal never shortens either, stays within what Redis keeps).
-- Wire protocol: Redisson's batched LockTask renewal (docs/protocol.md §1.6) extends per key too, but resets the
-- TTL to the watchdog timeout even when it was longer.

--#include holder_record

local lease = tonumber(ARGV[1])
local holds = #ARGV - 1
local records = #KEYS > holds
local renewed = {}
for i = 1, holds do
    local present = redis.pcall('hexists', KEYS[i], ARGV[i + 1])
    if present == 1 then
        local pttl = redis.call('pttl', KEYS[i])
        if lease > 0 and pttl < lease then
            redis.call('pexpire', KEYS[i], lease)
            pttl = lease
        end
        renewed[i] = pttl == -1 and -1 or math.max(pttl, 1)
        if records and lease > 0 and pttl > 0 and holder_record(KEYS[holds + i], ARGV[i + 1]) then
            redis.call('pexpire', KEYS[holds + i], pttl)
        end
    else
        renewed[i] = 0
    end
end
return renewed
