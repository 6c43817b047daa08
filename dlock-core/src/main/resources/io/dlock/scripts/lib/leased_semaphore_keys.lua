-- Fragment leased_semaphore_keys: checks both keys of a leased semaphore before a script touches either.
--
-- leased_semaphore_keys(count_key, table_key[, now]) takes the available-permits string (NAME) and the table of
-- acquired permits ({NAME}:timeout). Returns the available permits (0 when the count key is missing), the permits of
-- the table whose lease ran out by `now` (server time in ms; an empty table when `now` is not given) and nil; or nil,
-- nil and the error reply of permit_count or of the table's type check, which the caller returns at once. With `now`,
-- the read of the expired permits is the table's type check (fragment keyed_read), without, a TYPE (permit_table).
--
-- Invariant: nothing is written here; a key of another type is refused before anything changes. Wire protocol:
-- docs/protocol.md §13.2.

--#include permit_count
--#include permit_table
--#include keyed_read

local function leased_semaphore_keys(count_key, table_key, now)
    local available, refusal = permit_count(count_key)
    if refusal then
        return nil, nil, refusal
    end
    if now == nil then
        refusal = permit_table(table_key)
        return available, {}, refusal
    end
    local expired
    expired, refusal = keyed_read(
            "WRONGTYPE dlock: the key holds a %s, not a semaphore's permit table; nothing was changed",
            'zrangebyscore', table_key, 0, now)
    if refusal then
        return nil, nil, refusal
    end
    return available, expired, nil
end
