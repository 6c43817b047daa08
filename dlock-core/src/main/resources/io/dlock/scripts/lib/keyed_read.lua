-- Fragment keyed_read: a script's first read of a key, which refuses a key of another type without asking its TYPE
-- on the way (one command less on every call than a TYPE check before the read).
--
-- keyed_read(refusal, command, key, ...) runs the read-only `command` (GET, HGET, ZRANGEBYSCORE...) on `key` with the
-- further arguments and returns its reply and nil. When Redis refuses the command because `key` holds another type,
-- it returns nil and the error reply the caller returns at once, before it writes or publishes anything: the text
-- `refusal` with its "%s" replaced by the key's type (asked only then), e.g.
--   "WRONGTYPE dlock: the key holds a %s, not a semaphore's permit count; nothing was changed"
-- Any other refusal is returned as Redis gave it. A script's first write may go through it too (pes_acquire's ZADD):
-- a command Redis refuses changes nothing, so that write is then the type check, and the same rules hold.
--
-- Invariant: a key of another type is left exactly as it was: the read changes nothing, and the caller has written
-- nothing before it. Wire protocol: the refusals of docs/protocol.md §1.2 and §13.
local function keyed_read(refusal, command, key, ...)
    local reply = redis.pcall(command, key, ...)
    if type(reply) == 'table' and reply['err'] then
        if string.sub(reply['err'], 1, 9) == 'WRONGTYPE' then
            return nil, redis.error_reply(string.format(refusal, redis.call('type', key)['ok']))
        end
        return nil, reply
    end
    return reply, nil
end
