-- Reentrant lock: acquire or re-enter.
--
-- KEYS[1]  the lock hash (the lock's name)
-- ARGV[1]  lease in milliseconds (> 0): the hash's TTL after this call
-- ARGV[2]  the owner field, "<client id>:<owner id>"
--
-- Returns  nil when the caller now holds the lock (hold count incremented, TTL reset to the lease);
--          otherwise the lock's PTTL in ms (-1 if the key has no expiry), so the caller can bound its wait.
--
-- Invariant: the hash has exactly one owner field with a count >= 1, and always a TTL.
-- Wire protocol: same predicate and layout as Redisson's RLock acquire (redisson-protocol.md §2.2), so a Redisson
-- client and a dlock client exclude each other on one name. A key of another type fails with WRONGTYPE.
if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
return redis.call('pttl', KEYS[1])
