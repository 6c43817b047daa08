-- Fragment latch_count: reads a count-down latch's count, refusing a key that is not a latch.
--
-- latch_count(key) returns the count stored at `key` (the latch's name, KEYS[1]) as a number, or 0 when the key does
-- not exist (a latch never set, counted down to zero, deleted or expired: open); and, as a second result, the error
-- reply the caller returns at once when the key is not a latch, before anything is written or published (a returned
-- error reply, not error(): Redis 6.2 cannot raise a table as a script error):
--   * another type: "DLOCK_NOT_A_LATCH dlock: the key holds a <type>, not a count-down latch; nothing was changed"
--   * a string that is no integer: "DLOCK_NOT_A_LATCH dlock: the key holds a string that is not a count; ..."
-- Neither shows the key's value (it may be business data); the client turns both into a LockException naming the
-- latch (io.dlock.internal.latch.LatchErrors).
--
-- Invariant: a key that is not a latch is left exactly as it was, TTL included. Wire protocol: docs/protocol.md §11.
local function latch_count(key)
    local key_type = redis.call('type', key)['ok']
    if key_type == 'none' then
        return 0, nil
    end
    if key_type ~= 'string' then
        return nil, redis.error_reply('DLOCK_NOT_A_LATCH dlock: the key holds a ' .. key_type
                .. ', not a count-down latch; nothing was changed')
    end
    local count = tonumber(redis.call('get', key))
    if count == nil or count ~= math.floor(count) then
        return nil, redis.error_reply('DLOCK_NOT_A_LATCH dlock: the key holds a string that is not a count, not a '
                .. 'count-down latch; nothing was changed')
    end
    return count, nil
end
