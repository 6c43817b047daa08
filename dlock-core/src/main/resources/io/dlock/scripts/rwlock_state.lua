-- Read-write lock: what each side sees, read atomically.
--
-- KEYS[1]  the lock hash NAME
--
-- Returns  {write, read, pttl}: write = 1 when an owner holds the write lock (mode "write"); read = 1 when read holds
--          exist (mode "read", or mode "write" with a reader field besides the writer's: the writer also reads);
--          pttl = PTTL of NAME (-2 absent, -1 no expiry).
--
-- Wire protocol: Redisson's isLocked of the write side (mode = write) and of the read side (docs/protocol.md
-- §4.6, 3.24.1+ rule).
local mode = redis.call('hget', KEYS[1], 'mode')
local write, read = 0, 0
if mode == 'write' then
    write = 1
    if redis.call('hlen', KEYS[1]) > 2 then
        read = 1
    end
elseif mode == 'read' then
    read = 1
end
return {write, read, redis.call('pttl', KEYS[1])}
