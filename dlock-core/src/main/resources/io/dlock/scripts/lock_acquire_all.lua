-- Multi-lock of reentrant locks: take every lock or none, in one step (a multi-lock whose members are all plain locks
-- and whose names share one hash slot, docs/protocol.md §12).
--
-- KEYS[1..n]  the lock hashes (the members' names, in the multi-lock's order)
-- ARGV[1]     lease in milliseconds (> 0): each hash's TTL after this call
-- ARGV[2]     the owner field, "<client id>:<owner id>" (one owner takes every member)
-- ARGV[1+2i]  for member i (1..n): the owner's acquisitions of it that its client knows of, before this one
--             (lost-reply rule, as lock_acquire's ARGV[3])
-- ARGV[2+2i]  for member i: the acquisitions of the owner's hold of it that its client counts on (as lock_acquire's
--             ARGV[4])
--
-- Returns  nil when the owner now holds every member (each count one more, under the known-count rule; each TTL the
--          lease);
--          -(1000 + i) when member i's hold that this acquisition would re-enter is gone (HOLD_GONE of member i);
--          the error of not_a_lock when a member's key is there but is not a lock;
--          otherwise the PTTL in ms of the first member another owner holds (-1 if it has no expiry).
--          Nothing is changed unless every member could be taken.
--
-- Invariant: all or nothing: no member is taken unless every member is free or already the owner's, so two
-- multi-locks over overlapping names never hold part of each other's members (no deadlock, no order needed).
-- Wire protocol: each member ends as lock_acquire leaves it (docs/protocol.md §2.2): Redisson RLock and
-- RedissonMultiLock holders of the same names exclude the owner and are excluded by it.

--#include invalid_lease
--#include lock_refused
--#include lock_enter

local refusal = invalid_lease(ARGV[1])
if refusal then
    return refusal
end
-- the counts read by lock_refused stay true until lock_enter: the keys are distinct (one name once) and nothing is
-- written before every key was checked
local counts = {}
for i = 1, #KEYS do
    local refused, count = lock_refused(KEYS[i], ARGV[2], tonumber(ARGV[2 + 2 * i]))
    if refused == HOLD_GONE then
        return -(1000 + i)
    end
    if refused then
        return refused
    end
    counts[i] = count
end
for i = 1, #KEYS do
    lock_enter(KEYS[i], ARGV[2], counts[i], tonumber(ARGV[1 + 2 * i]), ARGV[1])
end
return nil
