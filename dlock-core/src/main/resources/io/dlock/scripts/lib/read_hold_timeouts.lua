-- Fragment read_hold_timeouts: where the read holds of a read-write lock live.
--
-- read_hold_timeouts(hash, root, own_field, own_count) lists the timeout keys <root>:<field>:rwlock_timeout:<n> of the
-- read holds recorded in `hash` (the lock hash NAME; `root` is "{NAME}", or "NAME" when NAME carries its own hash
-- tag): for each field other than "mode" and the writer fields (ending in ":write") whose value is a count, n from
-- that count down to 1, fields in HGETALL order. When own_field is given, own_count stands for that field's count
-- (the holds it keeps after a release). Reads `hash` only.
--
-- Wire protocol: the read-hold layout of Redisson's read-write lock (docs/protocol.md §4.1).
local function read_hold_timeouts(hash, root, own_field, own_count)
    local keys = {}
    local all = redis.call('hgetall', hash)
    for i = 1, #all, 2 do
        local field, count = all[i], tonumber(all[i + 1])
        if field == own_field then
            count = own_count
        end
        if field ~= 'mode' and count ~= nil and string.sub(field, -6) ~= ':write' then
            for n = count, 1, -1 do
                keys[#keys + 1] = root .. ':' .. field .. ':rwlock_timeout:' .. n
            end
        end
    end
    return keys
end
