-- Read-write lock: release one read hold.
--
-- KEYS[1]  the lock hash NAME
-- KEYS[2]  the channel, redisson_rwlock:{NAME}
-- KEYS[3]  the root of the per-hold timeout keys: "{NAME}", or "NAME" when NAME carries its own hash tag
-- ARGV[1]  the reader field, "<client id>:<owner id>"
-- ARGV[2]  the publish command: "publish", "spublish", or "both" (PUBLISH and SPUBLISH)
--
-- Returns  nil when the owner holds no read hold (never held, expired, removed);
--          0 when the owner still has read holds after this one;
--          1 when the owner has none left (its last one released, or only expired ones were left).
--
-- Invariants: the newest hold goes first (its timeout key <root>:<field>:rwlock_timeout:<count> is deleted). While
-- the mode is "read", the hash's TTL becomes the longest PTTL of all live read holds of every owner (dlock's and
-- Redisson's); when none is live the hash is deleted and "0" published (Redisson wakes one waiter per client, dlock
-- wakes its read-write waiters). While the owner also writes ("write" mode) the hash and its TTL are left alone.
-- Wire protocol: Redisson's read unlock (redisson-protocol.md §4.3), without the unlock latch.

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

local function longest_live_read(hash, root)
    local longest = 0
    local all = redis.call('hgetall', hash)
    for i = 1, #all, 2 do
        local field, count = all[i], tonumber(all[i + 1])
        if field ~= 'mode' and count ~= nil and string.sub(field, -6) ~= ':write' then
            for n = count, 1, -1 do
                local pttl = redis.call('pttl', root .. ':' .. field .. ':rwlock_timeout:' .. n)
                if pttl > longest then
                    longest = pttl
                end
            end
        end
    end
    return longest
end

local mode = redis.call('hget', KEYS[1], 'mode')
if not mode or redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
    return nil
end
local left = redis.call('hincrby', KEYS[1], ARGV[1], -1)
if left <= 0 then
    redis.call('hdel', KEYS[1], ARGV[1])
end
redis.call('del', KEYS[3] .. ':' .. ARGV[1] .. ':rwlock_timeout:' .. (left + 1))
if mode == 'write' then
    if left <= 0 then
        return 1
    end
    return 0
end
local longest = longest_live_read(KEYS[1], KEYS[3])
if longest > 0 then
    redis.call('pexpire', KEYS[1], longest)
    if left <= 0 then
        return 1
    end
    return 0
end
redis.call('del', KEYS[1])
notify(ARGV[2], KEYS[2], '0')
return 1
