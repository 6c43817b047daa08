-- Fragment holder_record: whether a record that names its hold's holder is a given holder's. Two kinds of record
-- follow a hold of a lock hash, both dlock-only hashes in the lock's slot with a field "holder" (the owner field of
-- the hold): a leader election's leader record, dlock_leader:{NAME} (docs/protocol.md §14.4), and a plain lock's hold
-- record, dlock_hold:{NAME} (§6.2, written only by clients built with holdDetails).
--
-- holder_record(key, holder) returns true when `key` is given and holds a hash whose field "holder" is `holder`;
-- false when `key` is nil (no record), absent, another holder's, or not a hash (never an error: the record is what
-- readers read, the lock's hash is what excludes, and a renewal or release must not fail for it). The caller then
-- gives the record its hold's TTL (acquisition, renewal) or deletes it with the hold (release).
--
-- Invariant: a record never outlives its holder's hold by more than the TTL the hold had, and is never touched for
-- another holder. Wire protocol: dlock only; Redisson never reads it.
local function holder_record(key, holder)
    if not key then
        return false
    end
    local current = redis.pcall('hget', key, 'holder')
    return type(current) == 'string' and current == holder
end
