-- Fragment notify: publishes a wake-up on a lock's channel.
--
-- notify(command, channel, message) publishes `message` on `channel` with `command`, the publish command the client
-- passes in ARGV: "publish", "spublish", or "both", which sends PUBLISH and then SPUBLISH (a cluster with sharded
-- pub/sub, where Redisson may listen with either); anything else is called as it is.
--
-- Contract: a publish that fails (a user without the channel's permission) raises and aborts the script, so every
-- caller publishes before the write that frees the lock. The channels and messages are the callers' (each states
-- them). Wire protocol: the publish command and how Redisson listens, docs/protocol.md §1.3.
local function notify(command, channel, message)
    if command == 'both' then
        return redis.call('publish', channel, message) + redis.call('spublish', channel, message)
    end
    return redis.call(command, channel, message)
end
