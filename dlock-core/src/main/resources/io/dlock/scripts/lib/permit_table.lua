-- Fragment permit_table: checks the type of a leased semaphore's table of acquired permits.
--
-- permit_table(key) returns nil when `key` (the zset {NAME}:timeout) is missing or a sorted set; otherwise the error
-- reply the caller returns at once: "WRONGTYPE dlock: the key holds a <type>, not a semaphore's permit table; nothing
-- was changed".
--
-- It also defines PERMIT_TABLE_REFUSAL, that refusal with "%s" for the type, for scripts whose first read of the table
-- is its type check (fragment keyed_read).
--
-- Invariant: a key that is not a permit table is left exactly as it was. Wire protocol: docs/protocol.md §13.2.
local PERMIT_TABLE_REFUSAL = "WRONGTYPE dlock: the key holds a %s, not a semaphore's permit table; nothing was changed"
local function permit_table(key)
    local key_type = redis.call('type', key)['ok']
    if key_type == 'none' or key_type == 'zset' then
        return nil
    end
    return redis.error_reply(string.format(PERMIT_TABLE_REFUSAL, key_type))
end
