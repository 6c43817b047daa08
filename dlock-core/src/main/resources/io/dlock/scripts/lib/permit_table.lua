-- Fragment permit_table: checks the type of a leased semaphore's table of acquired permits.
--
-- permit_table(key) returns nil when `key` (the zset {NAME}:timeout) is missing or a sorted set; otherwise the error
-- reply the caller returns at once: "WRONGTYPE dlock: the key holds a <type>, not a semaphore's permit table; nothing
-- was changed".
--
-- Invariant: a key that is not a permit table is left exactly as it was. Wire protocol: docs/protocol.md §13.2.
local function permit_table(key)
    local key_type = redis.call('type', key)['ok']
    if key_type == 'none' or key_type == 'zset' then
        return nil
    end
    return redis.error_reply('WRONGTYPE dlock: the key holds a ' .. key_type
            .. ", not a semaphore's permit table; nothing was changed")
end
