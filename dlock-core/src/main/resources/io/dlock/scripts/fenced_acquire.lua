-- Fenced lock: acquire (taking a new fencing token) or re-enter (keeping the hold's token).
--
-- KEYS[1]  the lock hash (the lock's name)
-- KEYS[2]  the token counter, redisson_lock_token:{NAME}: a string holding a decimal integer, no TTL
-- ARGV[1]  lease in milliseconds (> 0): the hash's TTL after this call
-- ARGV[2]  the owner field, "<client id>:<owner id>"
-- ARGV[3]  "1" when the caller's client knows of a hold of this owner (or of an attempt still awaiting its reply):
--          finding the field is then a re-entry; "0" when it knows of none: finding the field then means an
--          earlier attempt ran here but its reply never reached the client (command timeout, connection lost), so
--          nobody knows of that hold and this acquisition adopts it
--
-- Returns  {1, token} when the caller took the lock (or adopted an unknown hold of its own): a new token was issued
--                     and stored in KEYS[2]; the hold count is 1;
--          {2, token} when the caller re-entered a hold it already had: no new token; the counter's current value
--                     (the hold's token unless something else wrote the counter since), or -1 if it is absent;
--          {0, pttl}  when somebody else holds the lock: its PTTL in ms (-1 if the key has no expiry).
--          Every acquisition resets the hash's TTL to the lease, as lock_acquire does.
--
-- Invariant: a new token is max(counter + 1, Redis TIME in microseconds since the epoch), so
--   (a) it is greater than every token this counter ever held (the counter only grows);
--   (b) it is at least the server's clock, so that after the counter is lost (restart without persistence,
--       FLUSHALL, DEL) the next token is still greater than every earlier one, as long as the server's clock did not
--       step back and tokens never ran ahead of the clock (fewer than one token per microsecond for the name).
-- A counter that is not an integer, or a key of the wrong type, fails the script with nothing changed. Adopting
-- keeps a lost reply from leaving a hold count that the owner's unlocks never bring to zero.
-- Wire protocol: the hash and its predicate are the reentrant lock's (redisson-protocol.md §2.2), so plain dlock
-- locks, Redisson RLock and RFencedLock holders of the same name exclude each other. The counter is Redisson
-- RFencedLock's (§5.1, §9 item 7), which INCRs it on each of its acquisitions and so continues from our values.
if redis.replicate_commands then
    -- Redis < 5 replicates scripts verbatim unless told otherwise, which forbids writes after TIME. From 5 on
    -- (the embedded fallback binary is 6.2) effects replication is the default and this call is a no-op.
    redis.replicate_commands()
end

local fresh = redis.call('exists', KEYS[1]) == 0
if not fresh then
    if redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
        return {0, redis.call('pttl', KEYS[1])}
    end
    if ARGV[3] == '1' then
        local current = tonumber(redis.call('get', KEYS[2]) or '-1') or -1
        redis.call('hincrby', KEYS[1], ARGV[2], 1)
        redis.call('pexpire', KEYS[1], ARGV[1])
        return {2, current}
    end
    -- an unknown hold of the caller's own: adopted below as a new acquisition
end

-- The token first: INCRBY is the only step that can fail (the counter is not an integer, or out of range), and it
-- fails before anything is written.
local stored = tonumber(redis.call('get', KEYS[2]) or '0') or 0
local t = redis.call('time')
local clock_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
-- Lua numbers are doubles, exact below 2^53; microseconds since the epoch stay far below that. INCRBY adds in
-- Redis's 64-bit integers, so the stored value is exact even for a counter beyond 2^53 (then the step is 1).
local step = 1
if clock_us - stored > 1 then
    step = clock_us - stored
end
local token = redis.call('incrby', KEYS[2], string.format('%d', step))
redis.call('hset', KEYS[1], ARGV[2], 1)
redis.call('pexpire', KEYS[1], ARGV[1])
return {1, token}
