-- Fragment permit_count: reads a semaphore's count of available permits, refusing a key that is not one.
--
-- permit_count(key) returns the integer in `key` (a string holding a decimal integer, possibly negative), or 0 when
-- the key does not exist; and, as a second result, the error reply the caller returns at once when the key is not a
-- permit count (before it writes or publishes anything):
--   * another type:  "WRONGTYPE dlock: the key holds a <type>, not a semaphore's permit count; nothing was changed"
--   * a string that is no integer: "DLOCK_NOT_A_SEMAPHORE dlock: the key holds a string that is not a permit count;
--     nothing was changed"
-- Neither names the key's value (it may be business data); the client turns both into a NotALockException naming
-- the semaphore.
--
-- Invariant: a key that is not a permit count is left exactly as it was. Wire protocol: docs/protocol.md §13.1.
--#include keyed_read
local function permit_count(key)
    local raw, refusal = keyed_read(
            "WRONGTYPE dlock: the key holds a %s, not a semaphore's permit count; nothing was changed", 'get', key)
    if refusal then
        return nil, refusal
    end
    if not raw then
        return 0, nil
    end
    local value = tonumber(raw)
    if value == nil or value ~= math.floor(value) then
        return nil, redis.error_reply('DLOCK_NOT_A_SEMAPHORE dlock: the key holds a string that is not a permit '
                .. 'count; nothing was changed')
    end
    return value, nil
end
