-- Fragment lock_refused: whether an owner may take or re-enter a reentrant lock hash now (docs/protocol.md §2.2),
-- asked before anything is written, so that one script can check several locks before it takes any
-- (lock_acquire_all); fragment lock_enter then takes it.
--
-- lock_refused(hash, field, held) changes nothing. It answers nil and the field's hold count (false when absent)
-- when `field` may take the lock now (the hash is absent) or re-enter it (its field is there); otherwise HOLD_GONE
-- (`held`, the acquisitions the client counts on, is > 0 but the field is gone: fragment hold_gone's rule), the
-- DLOCK_NOT_A_LOCK error of not_a_lock (the key is a hash but not a lock), or the hash's PTTL in ms (another owner
-- holds it; -1 when it has no expiry); the WRONGTYPE error when the key is not a hash. The type is checked by the
-- HGET of the owner's field itself (fragment keyed_read): the free and re-entry paths cost HGET (+ EXISTS when free).
-- Wire protocol: Redisson's RLock acquire predicate, so Redisson and dlock holders exclude each other.

--#include wrong_type
--#include keyed_read
--#include hold_gone
--#include not_a_lock

local function lock_refused(hash, field, held)
    local count, wrong = keyed_read(LOCK_TYPE_REFUSAL, 'hget',
            hash, field)
    if wrong then
        return wrong
    end
    if count then
        return nil, count
    end
    if hold_gone(hash, field, held, false) then
        return HOLD_GONE
    end
    if redis.call('exists', hash) == 1 then
        -- busy, unless the key is not a lock at all (a business hash): then refused, never waited for
        return hash_not_a_lock(hash) or redis.call('pttl', hash)
    end
    return nil, false
end
