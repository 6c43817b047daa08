-- Read-write lock: release one write hold.
--
-- KEYS[1]  the lock hash NAME
-- KEYS[2]  the root of the per-hold timeout keys: "{NAME}", or "NAME" when NAME carries its own hash tag (a prefix
--          of keys, never itself read or written)
-- ARGV[1]  the writer field, "<client id>:<owner id>:write"
-- ARGV[2]  the same owner's reader field, "<client id>:<owner id>"
-- ARGV[3]  lease in ms to keep when write holds remain (the owner's current lease)
-- ARGV[4]  the publish command: "publish", "spublish", or "both" (PUBLISH and SPUBLISH)
-- ARGV[5]  the channel, redisson_rwlock:{NAME} (not a key: an ACL key pattern must not have to match it)
-- ARGV[6]  the writer's hold count after this call as its client knows it (its acquisitions, including attempts
--          still awaiting their reply, minus this one), or "-1" when the client knows of none: then one is taken
--          off; optional (absent: "-1")
-- ARGV[7]  "release" (one hold less, the default), or "drop-unknown" (an acquisition gave up after an attempt whose
--          reply never came: only a count above ARGV[6], left by that attempt, is brought down to it)
--
-- Returns  nil when the owner holds no write hold;
--          0 when write holds remain (count set to ARGV[6], or decremented; TTL reset to ARGV[3], or longer while one of the owner's
--          read holds lasts longer);
--          1 + n when the last write hold was released: the hash is deleted, or, if the owner still has live read
--          holds, the mode becomes "read" (downgrade) and the TTL the longest of them; either way "1" is published,
--          so every waiter wakes (waiting readers may enter together after a downgrade), and n is the number of
--          subscribers the message reached (the releasing client tells its own from other clients'); 0 also when
--          "drop-unknown" found nothing to drop.
--
-- Invariant: a hash in "write" mode has exactly one writer field; in "read" mode none. The publish runs before any
-- write: a publish that fails aborts the script with the lock unchanged.
-- Wire protocol: Redisson's write unlock (docs/protocol.md §4.5), without the unlock latch; on a downgrade
-- Redisson publishes nothing, dlock publishes "1" so that readers of either library enter at once.

--#include notify
--#include longest_live_read
--#include holds_left
--#include keep_holds
--#include write_hold_ttl

if redis.call('hget', KEYS[1], 'mode') ~= 'write' or redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
    return nil
end
local count = tonumber(redis.call('hget', KEYS[1], ARGV[1]))
local left = holds_left(count, ARGV[6], ARGV[7])
if not left then
    return 0
end
if left > 0 then
    local reads = tonumber(redis.call('hget', KEYS[1], ARGV[2]) or '0') or 0
    local timeouts = KEYS[2] .. ':' .. ARGV[2] .. ':rwlock_timeout:'
    keep_holds(KEYS[1], ARGV[1], count, left, write_hold_ttl(timeouts, reads, tonumber(ARGV[3])))
    return 0
end
-- the writer field is not a read hold: the longest live read is the same before and after it goes
local longest = longest_live_read(KEYS[1], KEYS[2])
local receivers = notify(ARGV[4], ARGV[5], '1')
if longest > 0 then
    redis.call('hdel', KEYS[1], ARGV[1])
    redis.call('hset', KEYS[1], 'mode', 'read')
    redis.call('pexpire', KEYS[1], longest)
else
    redis.call('del', KEYS[1])
end
return 1 + receivers
