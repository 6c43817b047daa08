-- Fragment lock_refused: whether an owner may take or re-enter a reentrant lock hash now (docs/protocol.md §2.2),
-- asked before anything is written, so that one script can check several locks before it takes any
-- (lock_acquire_all); fragment lock_enter then takes it.
--
-- lock_refused(hash, field, held) changes nothing. It answers nil and the field's hold count (false when absent)
-- when `field` may take the lock now (the hash is absent) or re-enter it (its field is there); otherwise HOLD_GONE
-- (`held`, the acquisitions the client counts on, is > 0 but the field is gone: fragment hold_gone's rule), the
-- DLOCK_NOT_A_LOCK error of not_a_lock (the key is a hash but not a lock), or the hash's PTTL in ms (another owner
-- holds it; -1 when it has no expiry); the WRONGTYPE error when the key is not a hash.
-- Its one read is HGETALL of the hash, run through fragment keyed_read, so that read is the type check too; it answers
-- every question on the way: free (empty), re-entry (the owner's field), and, when busy, whether the hash is a lock at
-- all (every field lock-shaped, fragment lock_shaped), which a business hash must fail before anyone waits on it. The
-- free and re-entry paths cost that one read, the busy path one PTTL more (Redisson's predicate asks EXISTS, HEXISTS
-- and PTTL). A plain lock's hash has one field, so the read is of one field, and of more only on a hash that is then
-- refused or a read-write lock's.
-- Wire protocol: Redisson's RLock acquire predicate, so Redisson and dlock holders exclude each other.

--#include wrong_type
--#include keyed_read
--#include hold_gone
--#include not_a_lock

local function lock_refused(hash, field, held)
    local all, wrong = keyed_read(LOCK_TYPE_REFUSAL, 'hgetall', hash)
    if wrong then
        return wrong
    end
    local count = false
    for i = 1, #all, 2 do
        if all[i] == field then
            count = all[i + 1]
            break
        end
    end
    if count then
        return nil, count
    end
    if hold_gone(hash, field, held, false) then
        return HOLD_GONE
    end
    if #all > 0 then
        -- busy, unless the key is not a lock at all (a business hash): then refused, never waited for
        return not_a_lock_fields(all) or redis.call('pttl', hash)
    end
    return nil, false
end
