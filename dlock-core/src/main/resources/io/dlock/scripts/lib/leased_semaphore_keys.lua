-- Fragment leased_semaphore_keys: checks both keys of a leased semaphore before a script touches either.
--
-- leased_semaphore_keys(count_key, table_key[, now]) takes the available-permits string (NAME) and the table of
-- acquired permits ({NAME}:timeout). Returns the available permits (0 when the count key is missing), the permits of
-- the table whose lease ran out by `now` (server time in ms; an empty table when `now` is not given), the table's
-- earliest entry ({id, expiry}, {} when the table is empty) when nothing ran out (else nil: the earliest changes with
-- the reclaim) and nil; or nil, nil, nil and the error reply of permit_count or of the table's type check, which the
-- caller returns at once. With `now`, the read of the earliest entry is the table's type check (fragment keyed_read)
-- and the expired permits are read only when it has run out; without, the check is a TYPE (permit_table).
--
-- expired_permits(table_key, now) is the table's half alone, for a script that read the count already: the permits
-- whose lease ran out by `now`, the earliest entry (as above) and nil; or nil, nil and the refusal of the table's type
-- check (its first read, fragment keyed_read).
--
-- Invariant: nothing is written here; a key of another type is refused before anything changes. Wire protocol:
-- docs/protocol.md §13.2.

--#include permit_count
--#include permit_table
--#include keyed_read

local function expired_permits(table_key, now)
    local earliest, refusal = keyed_read(PERMIT_TABLE_REFUSAL, 'zrange', table_key, 0, 0, 'withscores')
    if refusal then
        return nil, nil, refusal
    end
    if earliest[2] ~= nil and tonumber(earliest[2]) <= now then
        return redis.call('zrangebyscore', table_key, 0, now), nil, nil
    end
    return {}, earliest, nil
end

local function leased_semaphore_keys(count_key, table_key, now)
    local available, refusal = permit_count(count_key)
    if refusal then
        return nil, nil, nil, refusal
    end
    if now == nil then
        return available, {}, nil, permit_table(table_key)
    end
    local expired, earliest
    expired, earliest, refusal = expired_permits(table_key, now)
    if refusal then
        return nil, nil, nil, refusal
    end
    return available, expired, earliest, nil
end
