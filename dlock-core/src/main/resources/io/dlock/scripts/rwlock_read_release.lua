-- Read-write lock: release one read hold.
--
-- KEYS[1]  the lock hash NAME
-- KEYS[2]  the root of the per-hold timeout keys: "{NAME}", or "NAME" when NAME carries its own hash tag (a prefix
--          of keys, never itself read or written)
-- ARGV[1]  the reader field, "<client id>:<owner id>"
-- ARGV[2]  the publish command: "publish", "spublish", or "both" (PUBLISH and SPUBLISH)
-- ARGV[3]  the channel, redisson_rwlock:{NAME} (not a key: an ACL key pattern must not have to match it)
-- ARGV[4]  the reader's hold count after this call as its client knows it (its acquisitions, including attempts
--          still awaiting their reply, minus this one), or "-1" when the client knows of none; a release always
--          takes at least one hold off; optional (absent: "-1")
-- ARGV[5]  "release" (the default), or "drop-unknown" (an acquisition gave up after an attempt whose reply never
--          came: only holds above ARGV[4], left by that attempt, are dropped)
--
-- Returns  nil when the owner holds no read hold (never held, expired, removed);
--          0 when the owner still has read holds after this one;
--          1 when the owner has none left (its last one released, or only expired ones were left);
--          0 also when "drop-unknown" found nothing to drop.
--
-- Invariants: the newest holds go first (their timeout keys <root>:<field>:rwlock_timeout:<n> are deleted). While the
-- mode is "read", the hash's TTL becomes the longest PTTL of all live read holds of every owner (dlock's and
-- Redisson's; longest_live_read, settled, stops reading them at the first one that proves the hash's TTL); when none is
-- live the hash is deleted and "0" published (Redisson wakes one waiter per client, dlock wakes its read-write
-- waiters). While the owner also writes ("write" mode) the hash and its TTL are left alone.
-- The publish runs before any write: a publish that fails aborts the script with the lock unchanged.
-- Wire protocol: Redisson's read unlock (docs/protocol.md §4.3), without the unlock latch.

--#include notify
--#include longest_live_read

local mode = redis.call('hget', KEYS[1], 'mode')
local count = mode and tonumber(redis.call('hget', KEYS[1], ARGV[1]))
if not count then
    return nil
end
local left = tonumber(ARGV[4])
if ARGV[5] == 'drop-unknown' then
    if not left or left < 0 or count <= left then
        return 0
    end
elseif not left or left < 0 or left >= count then
    left = count - 1
end
local root = KEYS[2] .. ':' .. ARGV[1] .. ':rwlock_timeout:'
local function drop_newest()
    for n = count, left + 1, -1 do
        redis.call('del', root .. n)
    end
end
local longest = 0
local ttl_kept = false
if mode ~= 'write' then
    longest, ttl_kept = longest_live_read(KEYS[1], KEYS[2], ARGV[1], left, true)
    if longest <= 0 then
        notify(ARGV[2], ARGV[3], '0')
        drop_newest()
        redis.call('del', KEYS[1])
        return 1
    end
end
if left <= 0 then
    redis.call('hdel', KEYS[1], ARGV[1])
else
    redis.call('hset', KEYS[1], ARGV[1], left)
end
drop_newest()
if longest > 0 and not ttl_kept then
    redis.call('pexpire', KEYS[1], longest)
end
if left <= 0 then
    return 1
end
return 0
