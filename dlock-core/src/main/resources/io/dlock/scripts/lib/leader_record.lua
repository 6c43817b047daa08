-- Fragment leader_record: whether a leader election's record, dlock_leader:{NAME} (docs/protocol.md §14.4), is a
-- given holder's, for the scripts that renew and release the leader's hold.
--
-- leader_record(key, holder) returns true when `key` is given and holds a hash whose field "holder" is `holder` (the
-- owner field of the hold); false when `key` is nil (a plain or fenced lock: no record), absent, another holder's, or
-- not a hash (never an error: the record is what observers read, the lock's hash is what excludes, and a renewal or
-- release must not fail for it). The caller then gives the record its hold's TTL (renewal) or deletes it with the
-- hold (release).
--
-- Invariant: a record never outlives its leader's hold by more than the TTL the hold had, and is never touched for
-- another holder. Wire protocol: dlock only; Redisson never reads it.
local function leader_record(key, holder)
    if not key then
        return false
    end
    local current = redis.pcall('hget', key, 'holder')
    return type(current) == 'string' and current == holder
end
