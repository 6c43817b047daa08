-- Fenced lock: acquire (taking a new fencing token) or re-enter (keeping the hold's token).
--
-- KEYS[1]  the lock hash (the lock's name)
-- KEYS[2]  the token counter, redisson_lock_token:{NAME}: a string holding a decimal integer, no TTL
-- ARGV[1]  lease in milliseconds (> 0): the hash's TTL after this call
-- ARGV[2]  the owner field, "<client id>:<owner id>"
-- ARGV[3]  the owner's acquisitions its client knows of (held, or still awaiting their reply), before this one
-- ARGV[4]  "1" when the client's hold of this owner has a token of its own (taken through the fenced lock), "0"
--          when it has none (no hold, or a hold taken through the plain lock of the same name)
-- ARGV[5]  the acquisitions of the owner's hold that its client counts on (granted, not being released); optional
-- ARGV[6]  the floor: a new token is greater than it; optional ("0" or absent: none). A leader election passes the
--          highest epoch its candidate has seen (docs/protocol.md §14.2); plain fenced locks pass none
-- KEYS[3]  optional, a leader election's only: its leader record, dlock_leader:{NAME} (a hash, dlock only). When
--          given, a call that issues a new token also writes the record, with the lease as its TTL:
--          holder = ARGV[2], client = ARGV[9], host = ARGV[10], pid = ARGV[11], application = ARGV[12],
--          epoch = the token, since = Redis TIME in ms; and publishes the token on the leader channel ARGV[8] with
--          the publish command ARGV[7] (a publish the server refuses, such as one an ACL forbids, is skipped: the
--          record is what counts, observers also re-read at its TTL)
--
-- Returns  {1, token} when the caller took the lock, or re-entered a hold that had no token of its own: a new token
--                     was issued and stored in KEYS[2]; the hold count is ARGV[3] + 1;
--          {2, -1}    when the caller re-entered a hold that has its token: no new token, the hold keeps its own;
--          {0, pttl}  when somebody else holds the lock: its PTTL in ms (-1 if the key has no expiry);
--          {-4, -1}   (HOLD_GONE) when ARGV[5] > 0 but the owner's field is gone: nothing is changed (hold_gone).
--          the error of not_a_lock (DLOCK_NOT_A_LOCK / WRONGTYPE dlock) when the key is there but is not a lock
--          (a business hash): nothing is changed, the caller is refused rather than left waiting;
--          Every acquisition resets the hash's TTL to the lease, as lock_acquire does.
--
-- Invariant: a new token is max(counter + 1, Redis TIME in microseconds since the epoch, floor + 1), so
--   (a) it is greater than every token this counter ever held (the counter only grows), and than the floor;
--   (b) it is at least the server's clock, so that after the counter is lost (restart without persistence,
--       FLUSHALL, DEL) the next token is still greater than every earlier one, as long as the server's clock did not
--       step back and tokens never ran ahead of the clock (fewer than one token per microsecond for the name);
--   (c) for an election, it is greater than every epoch the winning candidate saw, whatever Redis lost (a failover
--       to a replica that lags, a server whose clock is behind).
-- A counter that is not an integer, or a key of the wrong type, fails the script with nothing changed. A count above
-- ARGV[3] can only come from an attempt of this owner whose reply was lost: this acquisition is that one (the count
-- becomes ARGV[3] + 1, never less than the acquisitions the client still counts on), so a lost reply cannot leave a
-- count that the owner's unlocks never bring to zero; with ARGV[3] = 0 it is a fresh acquisition and takes a token.
-- Wire protocol: the hash and its predicate are the reentrant lock's (docs/protocol.md §2.2), so plain dlock
-- locks, Redisson RLock and RFencedLock holders of the same name exclude each other. The counter is Redisson
-- RFencedLock's (§5.1, §9 item 7), which INCRs it on each of its acquisitions and so continues from our values.
-- The leader record and channel are dlock's alone (§14.4): Redisson never reads them, and its keys and values are
-- the same with or without them.

--#include invalid_lease
--#include wrong_type
--#include keyed_read
--#include hold_gone
--#include not_a_lock
--#include notify

local refusal = invalid_lease(ARGV[1])
if refusal then
    return refusal
end
-- the first read is the type check (fragment keyed_read), and the owner's count serves every rule below
local count, wrong = keyed_read(LOCK_TYPE_REFUSAL, 'hget', KEYS[1], ARGV[2])
if wrong then
    return wrong
end
-- the leader record is checked before anything is written: a key of another type there is refused, named
local leader = KEYS[3]
if leader then
    local leader_type = not_a_hash(leader)
    if leader_type then
        return redis.error_reply('WRONGTYPE dlock: the key ' .. leader .. ' holds a ' .. leader_type
                .. ', not a leader record; nothing was changed')
    end
end
if hold_gone(KEYS[1], ARGV[2], tonumber(ARGV[5]), count ~= false) then
    return {HOLD_GONE, -1}
end

if redis.replicate_commands then
    -- Redis < 5 replicates scripts verbatim unless told otherwise, which forbids writes after TIME. From 5 on
    -- (the embedded fallback binary is 6.2) effects replication is the default and this call is a no-op.
    redis.replicate_commands()
end

if count == false and redis.call('exists', KEYS[1]) == 1 then
    -- busy, unless the key is not a lock at all (a business hash): then refused, never waited for
    return hash_not_a_lock(KEYS[1]) or {0, redis.call('pttl', KEYS[1])}
end
local known = tonumber(ARGV[3])
local new_count = known + 1
if count ~= false and tonumber(count) <= known then
    new_count = tonumber(count) + 1
end
if count == false then
    new_count = 1
end
if count ~= false and known > 0 and ARGV[4] == '1' then
    -- a re-entry of a hold that has its own token: it keeps it
    redis.call('hset', KEYS[1], ARGV[2], new_count)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return {2, -1}
end

-- The token first: INCRBY is the only step that can fail (the counter is not an integer, or out of range), and it
-- fails before anything is written.
local stored = tonumber(redis.call('get', KEYS[2]) or '0') or 0
local t = redis.call('time')
local clock_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
-- Lua numbers are doubles, exact below 2^53; microseconds since the epoch stay far below that. INCRBY adds in
-- Redis's 64-bit integers, so the stored value is exact even for a counter beyond 2^53 (then the step is 1).
local target = math.max(stored + 1, clock_us, (tonumber(ARGV[6] or '0') or 0) + 1)
local step = 1
if target - stored > 1 then
    step = target - stored
end
local token = redis.call('incrby', KEYS[2], string.format('%d', step))
redis.call('hset', KEYS[1], ARGV[2], new_count)
redis.call('pexpire', KEYS[1], ARGV[1])
if leader then
    redis.call('del', leader)
    redis.call('hset', leader, 'holder', ARGV[2], 'client', ARGV[9], 'host', ARGV[10], 'pid', ARGV[11],
            'application', ARGV[12], 'epoch', string.format('%d', token), 'since',
            string.format('%d', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)))
    redis.call('pexpire', leader, ARGV[1])
    pcall(notify, ARGV[7], ARGV[8], string.format('%d', token))
end
return {1, token}
