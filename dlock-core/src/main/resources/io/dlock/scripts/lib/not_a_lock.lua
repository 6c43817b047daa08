-- Fragment not_a_lock: the refusal of the force-release scripts to remove what is not a lock.
--
-- not_a_lock(key) returns nil when `key` (the lock's name, KEYS[1]) does not exist or is a hash that lock_shaped
-- takes for a lock; otherwise the error reply the caller returns at once, before it writes or publishes anything:
--   * another type: "WRONGTYPE dlock: the key holds a <type>, not a lock; nothing was changed"
--   * a hash of other fields: "DLOCK_NOT_A_LOCK dlock: the key holds a hash that is not a lock; nothing was changed"
-- Neither names a field or a value of the key (they may be business data); the client turns both into a
-- NotALockException naming the lock (io.dlock.internal.Errors).
--
-- It also defines hash_not_a_lock(key), the same check for a key the caller already knows to be an existing hash
-- (one HGETALL, no TYPE or EXISTS): nil when lock_shaped takes it for a lock, else the DLOCK_NOT_A_LOCK error above;
-- and not_a_lock_fields(all), that check over the HGETALL reply of such a hash that the caller has read already.
--
-- Invariant: a key that is not a lock is left exactly as it was, TTL included. Wire protocol: docs/protocol.md §1.2.
--#include lock_shaped
--#include wrong_type
local function not_a_lock_fields(all)
    if lock_fields_shaped(all) then
        return nil
    end
    return redis.error_reply('DLOCK_NOT_A_LOCK dlock: the key holds a hash that is not a lock; nothing was changed')
end

local function hash_not_a_lock(key)
    return not_a_lock_fields(redis.call('hgetall', key))
end

local function not_a_lock(key)
    local refusal = wrong_type(key)
    if refusal or redis.call('exists', key) == 0 then
        return refusal
    end
    return hash_not_a_lock(key)
end
