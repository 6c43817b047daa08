-- Read-write lock: extend the lease of one owner's read holds.
--
-- KEYS[1]  the lock hash NAME
-- KEYS[2]  the root of the per-hold timeout keys: "{NAME}", or "NAME" when NAME carries its own hash tag
-- ARGV[1]  the new lease in ms (> 0)
-- ARGV[2]  the reader field, "<client id>:<owner id>"
--
-- Returns  1 when the owner has at least one live read hold: each live one (its timeout key
--          <KEYS[2]>:<reader field>:rwlock_timeout:<n> exists) now expires ARGV[1] ms from now, and the hash's TTL is
--          the longest PTTL of the live read holds of every owner (or stays, if longer, while the owner also writes);
--          0 when it has none (never held, released, expired or removed): nothing is changed.
--
-- Invariants: a read hold that is gone is never brought back and only the owner's own read holds change; the hash
-- lives exactly as long as its longest live read hold (as after a read release), so a shorter lease never leaves the
-- hash keeping writers out after its holds ended.
-- Wire protocol: dlock only; the timeout keys and hash TTL follow Redisson's read-hold layout (docs/protocol.md §1.8,
-- §4.1).

--#include invalid_lease
--#include longest_live_read

local refusal = invalid_lease(ARGV[1])
if refusal then
    return refusal
end
local mode = redis.call('hget', KEYS[1], 'mode')
local count = mode and tonumber(redis.call('hget', KEYS[1], ARGV[2]))
if not count then
    return 0
end
local root = KEYS[2] .. ':' .. ARGV[2] .. ':rwlock_timeout:'
local alive = false
for n = count, 1, -1 do
    if redis.call('exists', root .. n) == 1 then
        redis.call('pexpire', root .. n, ARGV[1])
        alive = true
    end
end
if not alive then
    return 0
end
local ttl = longest_live_read(KEYS[1], KEYS[2])
if mode == 'write' then
    ttl = math.max(ttl, redis.call('pttl', KEYS[1]))
end
if ttl > 0 then
    redis.call('pexpire', KEYS[1], ttl)
end
return 1
