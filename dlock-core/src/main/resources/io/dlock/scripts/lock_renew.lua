-- Watchdog: renew many holds in one call.
--
-- KEYS[i]    a lock hash
-- ARGV[1]    the new lease in ms
-- ARGV[i+1]  the owner field whose hold in KEYS[i] is renewed
--
-- Returns  a list with, for each i, 1 when the hold existed and the hash's TTL was reset to ARGV[1],
--          0 when the hold is gone (or the key is no longer a hash): the owner has lost it.
--
-- Invariant: a hold that is gone is never brought back; only hashes holding the owner's field are extended.
-- Wire protocol: Redisson's batched LockTask renewal (redisson-protocol.md §1.6) does the same per key.
local renewed = {}
for i = 1, #KEYS do
    local present = redis.pcall('hexists', KEYS[i], ARGV[i + 1])
    if present == 1 then
        redis.call('pexpire', KEYS[i], ARGV[1])
        renewed[i] = 1
    else
        renewed[i] = 0
    end
end
return renewed
