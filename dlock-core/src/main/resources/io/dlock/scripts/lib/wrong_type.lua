-- Fragment wrong_type: the refusal of every lock script to touch a key of another type than a lock's hash.
--
-- wrong_type(key) returns nil when `key` does not exist or is a hash; otherwise the error reply the caller returns
-- at once, before it writes or publishes anything:
--   "WRONGTYPE dlock: the key holds a <type>, not a lock; nothing was changed"
-- The client turns it into a NotALockException naming the lock and the type (io.dlock.internal.Errors). Scripts that
-- write before they read (the force releases) call it first, so that a string or a list under a lock's name is
-- refused with its type named instead of failing inside a hash command with Redis's bare WRONGTYPE (one TYPE lookup,
-- O(1)); the acquire scripts give the same refusal from their first read instead (keyed_read + LOCK_TYPE_REFUSAL).
--
-- Invariant: a key of another type is left exactly as it was, TTL included. Wire protocol: docs/protocol.md §1.2.
-- It also defines LOCK_TYPE_REFUSAL, that refusal with "%s" for the type, for scripts whose first read of the lock's
-- hash is its type check (fragment keyed_read), and not_a_hash(key), the one rule behind it for every dlock hash (a
-- lock, a leader record, a client's card): the key's type when it exists and is not a hash, else nil.
local LOCK_TYPE_REFUSAL = 'WRONGTYPE dlock: the key holds a %s, not a lock; nothing was changed'
local function not_a_hash(key)
    local key_type = redis.call('type', key)['ok']
    if key_type == 'none' or key_type == 'hash' then
        return nil
    end
    return key_type
end
local function wrong_type(key)
    local key_type = not_a_hash(key)
    if key_type == nil then
        return nil
    end
    return redis.error_reply(string.format(LOCK_TYPE_REFUSAL, key_type))
end
