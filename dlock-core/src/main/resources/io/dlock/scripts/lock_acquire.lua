-- Reentrant lock: acquire or re-enter.
--
-- KEYS[1]  the lock hash (the lock's name)
-- ARGV[1]  lease in milliseconds (> 0): the hash's TTL after this call
-- ARGV[2]  the owner field, "<client id>:<owner id>"
-- ARGV[3]  the owner's acquisitions its client knows of (held, or still awaiting their reply), before this one
-- ARGV[4]  the acquisitions of the owner's hold that its client counts on (granted, not being released); optional
-- KEYS[2]  optional, clients built with holdDetails only: the lock's hold record, dlock_hold:{NAME} (fragment
--          hold_record): a first hold writes it (holder ARGV[2], since, thread ARGV[5]), a re-entry gives it the lease
-- ARGV[5]  with KEYS[2]: the acquiring thread's name
--
-- Returns  nil when the caller now holds the lock (hold count ARGV[3] + 1, TTL reset to the lease);
--          -4 (HOLD_GONE) when ARGV[4] > 0 but the owner's field is gone: nothing is changed (fragment hold_gone);
--          the error of not_a_lock (DLOCK_NOT_A_LOCK / WRONGTYPE dlock) when the key is there but is not a lock
--          (a business hash): nothing is changed, the caller is refused rather than left waiting;
--          a WRONGTYPE error naming KEYS[2] when the hold record's key holds another type: nothing is changed;
--          otherwise the lock's PTTL in ms (-1 if the key has no expiry), so the caller can bound its wait.
--
-- Invariant: the hash has exactly one owner field with a count >= 1, and always a TTL. A count above ARGV[3] can only
-- come from an attempt of this owner that ran but whose reply was lost (command timeout, cut connection): this
-- acquisition is that one, so the count becomes ARGV[3] + 1, never more than the client knows, never less than the
-- acquisitions it still counts on.
-- Wire protocol: same predicate and layout as Redisson's RLock acquire (docs/protocol.md §2.2), so a Redisson
-- client and a dlock client exclude each other on one name. A key of another type fails with WRONGTYPE.

--#include invalid_lease
--#include lock_refused
--#include lock_enter
--#include hold_record

local refusal = invalid_lease(ARGV[1])
if refusal then
    return refusal
end
local refused, count = lock_refused(KEYS[1], ARGV[2], tonumber(ARGV[4]))
if refused then
    return refused
end
local record = KEYS[2]
refusal = hold_record_refusal(record)
if refusal then
    return refusal
end
lock_enter(KEYS[1], ARGV[2], count, tonumber(ARGV[3]), ARGV[1])
if record then
    if count == false then
        hold_record(record, ARGV[2], ARGV[5], ARGV[1])
    else
        hold_record_kept(record, ARGV[2], ARGV[1])
    end
end
return nil
