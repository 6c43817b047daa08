-- Reentrant lock: release one hold.
--
-- KEYS[1]  the lock hash
-- KEYS[2]  the unlock channel, redisson_lock__channel:{NAME}
-- ARGV[1]  the owner field, "<client id>:<owner id>"
-- ARGV[2]  lease in ms to set when holds remain (the owner's current lease)
-- ARGV[3]  the publish command: "publish", "spublish", or "both" (PUBLISH and SPUBLISH)
--
-- Returns  1 when the last hold was released (hash deleted, "0" published: wake one waiter),
--          0 when holds remain (count decremented, TTL reset to ARGV[2]),
--          nil when the owner holds nothing (never held, expired, or removed).
--
-- Invariant: never touches another owner's hold; a hash never outlives its last hold.
-- Wire protocol: Redisson's RLock unlock (redisson-protocol.md §2.3): DEL then publish ASCII "0" on the channel.

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

if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
    return nil
end
local remaining = redis.call('hincrby', KEYS[1], ARGV[1], -1)
if remaining > 0 then
    redis.call('pexpire', KEYS[1], ARGV[2])
    return 0
end
redis.call('del', KEYS[1])
notify(ARGV[3], KEYS[2], '0')
return 1
