-- Fragment add_permits: the one way permits go back to a semaphore's count (plain and leased alike).
--
-- add_permits(key, n) adds `n` to the count `key` with INCRBY and returns the count after it and nil; or nil and the
-- error reply the caller returns at once when the key is not a permit count. INCRBY is the key's check and its read:
-- it refuses, changing nothing, a key of another type or a string it cannot read as an integer, and permit_count then
-- names what the key holds (its refusal, or Redis's own error when permit_count accepts the key). A missing key is
-- created holding `n`; a TTL the key has is kept.
--
-- Callers make it their first write, and publish the count it answers (fragment announce_permits) after their writes,
-- as Redisson's releases do; so no count is read before a release, and a key of another type is never half-written.
--
-- Invariant: a refused call changes nothing. Wire protocol: docs/protocol.md §13.1 and §13.2.
--#include permit_count
local function add_permits(key, n)
    local after = redis.pcall('incrby', key, n)
    if type(after) == 'table' and after['err'] then
        local _, refusal = permit_count(key)
        return nil, refusal or after
    end
    return after, nil
end
