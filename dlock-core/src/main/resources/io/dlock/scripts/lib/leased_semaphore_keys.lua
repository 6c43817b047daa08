-- Fragment leased_semaphore_keys: checks both keys of a leased semaphore before a script touches either.
--
-- leased_semaphore_keys(count_key, table_key) takes the available-permits string (NAME) and the table of acquired
-- permits ({NAME}:timeout). Returns the available permits (0 when the count key is missing) and nil, or nil and the
-- error reply of permit_count or permit_table, which the caller returns at once.
--
-- Invariant: nothing is written here; a key of another type is refused before anything changes. Wire protocol:
-- docs/protocol.md §13.2.

--#include permit_count
--#include permit_table

local function leased_semaphore_keys(count_key, table_key)
    local available, refusal = permit_count(count_key)
    if refusal then
        return nil, refusal
    end
    refusal = permit_table(table_key)
    if refusal then
        return nil, refusal
    end
    return available, nil
end
