-- Fragment lock_refused: whether an owner may take or re-enter a reentrant lock hash now (docs/protocol.md §2.2),
-- asked before anything is written, so that one script can check several locks before it takes any
-- (lock_acquire_all); fragment lock_enter then takes it.
--
-- lock_refused(hash, field, held) changes nothing and answers nil when `field` may take the lock now (the hash is
-- absent) or re-enter it (its field is there); otherwise HOLD_GONE (fragment hold_gone: `held` > 0 but the field is
-- gone), the error of not_a_lock (the key is there but is not a lock), or the hash's PTTL in ms (another owner holds
-- it; -1 when it has no expiry); the error of wrong_type when the key is not a hash.
-- Wire protocol: Redisson's RLock acquire predicate, so Redisson and dlock holders exclude each other.

--#include hold_gone
--#include not_a_lock

local function lock_refused(hash, field, held)
    local wrong = wrong_type(hash)
    if wrong then
        return wrong
    end
    if hold_gone(hash, field, held) then
        return HOLD_GONE
    end
    if redis.call('hexists', hash, field) == 0 and redis.call('exists', hash) == 1 then
        -- busy, unless the key is not a lock at all (a business hash): then refused, never waited for
        return not_a_lock(hash) or redis.call('pttl', hash)
    end
    return nil
end
