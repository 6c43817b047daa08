-- Fragment lock_enter: take or re-enter a reentrant lock hash that fragment lock_refused found open to the owner
-- (docs/protocol.md §2.2).
--
-- lock_enter(hash, field, count, known, lease_ms) adds one hold of `field`, whose count lock_refused read (its second
-- answer: false when absent), by fragment add_hold (the known-count rule) and sets the hash's TTL to the lease. Call
-- it only after lock_refused answered nil for the same hash and field in the same script, with nothing written to
-- that hash in between.
--
-- Invariant: the hash has exactly one owner field with a count >= 1, and always a TTL.
-- Wire protocol: the layout of Redisson's RLock (one field per owner, its hold count, a TTL).

--#include add_hold

local function lock_enter(hash, field, count, known, lease_ms)
    add_hold(hash, field, count, known)
    redis.call('pexpire', hash, lease_ms)
end
