-- Read-write lock: hand the write lock from its releasing writer straight to owners of the same client that wait
-- for it inside the client: to one waiting writer, or to all waiting readers at once.
--
-- KEYS[1]  the lock hash NAME
-- KEYS[2]  dlock's waiting marks, dlock_rwlock_writers:{NAME} (fragment waiting_marks)
-- KEYS[3]  the root of the per-hold timeout keys: "{NAME}", or "NAME" when NAME carries its own hash tag
-- ARGV[1]  the releasing writer field, "<client id>:<owner id>:write"
-- ARGV[2]  the releasing owner's reader field, "<client id>:<owner id>"
-- ARGV[3]  the publish command: "publish", "spublish", or "both" (PUBLISH and SPUBLISH)
-- ARGV[4]  the channel, redisson_rwlock:{NAME}
-- ARGV[5]  "write": ARGV[6..8] are the receiving writer field, its owner's reader field and its lease in ms;
--          "read": ARGV[6..] are pairs (reader field, lease in ms) of the receiving readers
--
-- Returns  nil when the releaser holds no write hold (never held, expired, or removed; nothing changed);
--          0 when nothing changed and the caller releases as usual: the releaser holds more than one write
--          acquisition, or read holds of its own (its release is a downgrade), or a receiver already has a field
--          (left by an attempt whose reply was lost: its own attempt sorts that out), or, for a writer, a reader mark
--          is live (the readers' turn, fragment waiting_marks: the release goes through Redis and lets them in);
--          1 when the write lock passed to the writer: mode still "write", the releaser's field removed, the
--          receiver's set to 1, TTL = its lease, its waiting mark removed; nothing published;
--          2 + n when the readers got the lock: mode "read", each reader's field set to 1 with its timeout key
--          <KEYS[3]>:<reader field>:rwlock_timeout:1 for its lease, the hash's TTL the longest of those leases, each
--          reader's waiting mark removed; "1" published (as a write release does), which reached n subscribers.
--          Readers are handed the lock whatever writer marks exist: they waited behind this write hold, so the turn
--          is theirs (waiting_marks), and the writers' marks keep new readers out afterwards.
--
-- Invariant: the hash is never free in between; a writer hand-off keeps exactly one writer field and publishes
-- nothing, so nobody of another client can enter; a reader hand-off is a write release immediately followed by the
-- readers' acquisitions, and wakes other clients' waiters as the release would.
-- Wire protocol: the result is the layout of holds that the receivers acquired themselves (docs/protocol.md §4), so
-- Redisson clients see an ordinary write hold, or ordinary read holds they may join.

--#include invalid_lease
--#include notify
--#include waiting_marks

if redis.call('hget', KEYS[1], 'mode') ~= 'write' then
    return nil
end
local count = redis.call('hget', KEYS[1], ARGV[1])
if count == false then
    return nil
end
if tonumber(count) ~= 1 or redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    return 0
end

if ARGV[5] == 'write' then
    local refusal = invalid_lease(ARGV[8])
    if refusal then
        return refusal
    end
    if redis.call('hexists', KEYS[1], ARGV[7]) == 1 then
        return 0
    end
    local _, readers_until = waiting_marks(KEYS[2])
    if readers_until then
        return 0
    end
    redis.call('hdel', KEYS[1], ARGV[1])
    redis.call('hset', KEYS[1], ARGV[6], 1)
    redis.call('pexpire', KEYS[1], ARGV[8])
    redis.call('zrem', KEYS[2], ARGV[6])
    return 1
end

local longest = 0
for i = 6, #ARGV, 2 do
    local refusal = invalid_lease(ARGV[i + 1])
    if refusal then
        return refusal
    end
    if redis.call('hexists', KEYS[1], ARGV[i]) == 1 then
        return 0
    end
    longest = math.max(longest, tonumber(ARGV[i + 1]))
end
-- publish first: a publish that fails aborts the script before anything changed
local receivers = notify(ARGV[3], ARGV[4], '1')
redis.call('hdel', KEYS[1], ARGV[1])
redis.call('hset', KEYS[1], 'mode', 'read')
for i = 6, #ARGV, 2 do
    redis.call('hset', KEYS[1], ARGV[i], 1)
    redis.call('set', KEYS[3] .. ':' .. ARGV[i] .. ':rwlock_timeout:1', '1', 'px', ARGV[i + 1])
    redis.call('zrem', KEYS[2], ARGV[i])
end
redis.call('pexpire', KEYS[1], longest)
return 2 + receivers
