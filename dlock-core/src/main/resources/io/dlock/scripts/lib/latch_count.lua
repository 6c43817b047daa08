-- Fragment latch_count: reads a count-down latch's count, refusing a key that is not a latch.
--
-- latch_count(key) returns, for `key` (the latch's name, KEYS[1]):
--   1. the count as a Lua number, or 0 when the key does not exist (a latch never set, counted down to zero, deleted
--      or expired: open). A number is a double: exact up to 2^53, and always of the right sign, which is all the
--      scripts decide on (closed: > 0). dlock never sets more than 2^53; Redisson may (any long);
--   2. the error reply the caller returns at once when the key is not a latch, before anything is written or
--      published (a returned error reply, not error(): Redis 6.2 cannot raise a table as a script error):
--        * another type: "DLOCK_NOT_A_LATCH dlock: the key holds a <type>, not a count-down latch; nothing was changed"
--        * a string that is not a 64-bit integer as DECR reads one (decimal digits, an optional '-', no leading zero,
--          in range): "DLOCK_NOT_A_LATCH dlock: the key holds a string that is not a count; ..."
--      Neither shows the key's value (it may be business data); the client turns both into a LockException naming
--      the latch (io.dlock.internal.latch.LatchErrors);
--   3. the count exactly as stored (a string; "0" when the key does not exist), for replies that must not round it;
--   4. whether the key exists.
-- The type is checked by the GET itself (fragment keyed_read): no TYPE on the way.
--
-- Invariant: a key that is not a latch is left exactly as it was, TTL included; every key accepted is one DECR takes.
-- Wire protocol: docs/protocol.md §11.
--#include keyed_read
local function latch_count(key)
    local text, refusal = keyed_read(
            'DLOCK_NOT_A_LATCH dlock: the key holds a %s, not a count-down latch; nothing was changed', 'get', key)
    if refusal then
        return nil, refusal
    end
    if not text then
        return 0, nil, '0', false
    end
    local digits = string.match(text, '^%-?([1-9]%d*)$')
    local fits = text == '0' or (digits ~= nil and (#digits < 19 or (#digits == 19
            and digits <= (string.sub(text, 1, 1) == '-' and '9223372036854775808' or '9223372036854775807'))))
    if not fits then
        return nil, redis.error_reply('DLOCK_NOT_A_LATCH dlock: the key holds a string that is not a count, not a '
                .. 'count-down latch; nothing was changed')
    end
    return tonumber(text), nil, text, true
end
