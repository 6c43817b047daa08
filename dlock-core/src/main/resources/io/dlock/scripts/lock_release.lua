-- Reentrant lock: release one hold.
--
-- KEYS[1]  the lock hash
-- ARGV[1]  the owner field, "<client id>:<owner id>"
-- ARGV[2]  lease in ms to set when holds remain (the owner's current lease)
-- ARGV[3]  the publish command: "publish", "spublish", or "both" (PUBLISH and SPUBLISH)
-- ARGV[4]  the unlock channel, redisson_lock__channel:{NAME} (not a key: an ACL key pattern must not have to match it)
-- ARGV[5]  the owner's hold count after this call as its client knows it (its acquisitions, including attempts
--          still awaiting their reply, minus this one), or "-1" when the client knows of none: then one is taken off
-- ARGV[6]  "release" (one hold less: the unlock), or "drop-unknown" (an acquisition gave up after an attempt whose
--          reply never came: only a count above ARGV[5], left by that attempt, is brought down to it)
-- KEYS[2]  optional: the hold's record, a leader election's dlock_leader:{NAME} or a plain lock's dlock_hold:{NAME},
--          deleted with the owner's last hold when it is the owner's (fragment holder_record), and given the hash's
--          TTL when holds remain
--
-- Returns  1 + n when the owner's last hold was released (hash deleted, "0" published: wake one waiter), where n is
--          the number of subscribers the message reached (the releasing client tells its own from other clients'),
--          0 when holds remain (count set to ARGV[5], TTL reset to ARGV[2]) or nothing was to be dropped,
--          nil when the owner holds nothing (never held, expired, or removed).
--
-- Invariant: never touches another owner's hold; a hash never outlives its last hold. The count after the call is
--            the one the client knows, so a lost reply of an earlier acquisition (which counted in Redis but never
--            reached the client) cannot keep the lock held after the owner's last unlock. The publish runs before any
--            write that frees the lock: a publish that fails (a user without the channel's permission) aborts the
--            script with the lock unchanged, never after freeing it. Subscribers still act only after the script,
--            when the lock is free.
-- Wire protocol: Redisson's RLock unlock (docs/protocol.md §2.3): DEL and publish ASCII "0" on the channel (in
--            the other order, which no subscriber can tell apart).

--#include notify
--#include holds_left
--#include keep_holds
--#include holder_record

local count = redis.call('hget', KEYS[1], ARGV[1])
if count == false then
    return nil
end
count = tonumber(count)
local remaining = holds_left(count, ARGV[5], ARGV[6])
if not remaining then
    return 0
end
if remaining > 0 then
    keep_holds(KEYS[1], ARGV[1], count, remaining, ARGV[2])
    local pttl = redis.call('pttl', KEYS[1])
    if pttl > 0 and holder_record(KEYS[2], ARGV[1]) then
        -- the record follows the hash's TTL, which the remaining acquisitions' lease set
        redis.call('pexpire', KEYS[2], pttl)
    end
    return 0
end
local receivers = notify(ARGV[3], ARGV[4], '0')
redis.call('del', KEYS[1])
if holder_record(KEYS[2], ARGV[1]) then
    redis.call('del', KEYS[2])
end
return 1 + receivers
