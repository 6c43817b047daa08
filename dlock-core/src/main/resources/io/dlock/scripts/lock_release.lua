-- Reentrant lock: release one hold.
--
-- KEYS[1]  the lock hash
-- ARGV[1]  the owner field, "<client id>:<owner id>"
-- ARGV[2]  lease in ms to set when holds remain (the owner's current lease)
-- ARGV[3]  the publish command: "publish", "spublish", or "both" (PUBLISH and SPUBLISH)
-- ARGV[4]  the unlock channel, redisson_lock__channel:{NAME} (not a key: an ACL key pattern must not have to match it)
--
-- Returns  1 when the last hold was released (hash deleted, "0" published: wake one waiter),
--          0 when holds remain (count decremented, TTL reset to ARGV[2]),
--          nil when the owner holds nothing (never held, expired, or removed).
--
-- Invariant: never touches another owner's hold; a hash never outlives its last hold. The publish runs before any
--            write: a publish that fails (a user without the channel's permission) aborts the script with the lock
--            unchanged, never after freeing it. Subscribers still act only after the script, when the lock is free.
-- Wire protocol: Redisson's RLock unlock (redisson-protocol.md §2.3): DEL and publish ASCII "0" on the channel (in
--            the other order, which no subscriber can tell apart).

-- Publishes on a channel; the command "both" sends PUBLISH and SPUBLISH (a cluster with sharded pub/sub, where
-- Redisson may listen with either), anything else is called as it is.
local function notify(command, channel, message)
    if command == 'both' then
        redis.call('publish', channel, message)
        redis.call('spublish', channel, message)
    else
        redis.call(command, channel, message)
    end
end

local count = tonumber(redis.call('hget', KEYS[1], ARGV[1]))
if not count then
    return nil
end
if count > 1 then
    redis.call('hincrby', KEYS[1], ARGV[1], -1)
    redis.call('pexpire', KEYS[1], ARGV[2])
    return 0
end
notify(ARGV[3], ARGV[4], '0')
redis.call('del', KEYS[1])
return 1
