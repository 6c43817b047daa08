-- Leased semaphore: take one permit, or several at once (all or none), each under a new id, with a lease judged by
-- the server's clock.
--
-- KEYS[1]  the permit count (the semaphore's name)
-- KEYS[2]  the permit table, {NAME}:timeout (NAME:timeout when NAME has a hash tag): a zset of raw 16-byte ids
--          scored by their absolute expiry in epoch ms
-- ARGV[1]  the lease in ms (> 0): the permit expires at server time + ARGV[1]
-- ARGV[2]  the publish command: "publish", "spublish" or "both"
-- ARGV[3]  the semaphore's channel, redisson_sc:{NAME} (not a key)
-- ARGV[4…] the new permits' ids, one per permit to take (n = #ARGV - 3 >= 1): 32 lower-case hex digits each, fresh
--          (never used before) and distinct
--
-- Returns  0 when the n permits were taken (count lowered by n, each id added to the table with the same expiry);
--          otherwise, with nothing taken, the ms until the earliest lease in the table ends (>= 1), or -1 when no
--          lease will end by itself (the table is empty or holds only Redisson's "no lease" permits);
--          the error of permit_count / permit_table when a key has the wrong type.
--
-- Invariant: all or none: either the count covers all n and every id enters the table in this call, or nothing is
-- taken (a waiter for several never holds some while it waits for the rest). Expired permits are reclaimed when the
-- count alone does not cover n (fragment reclaim_expired), before the answer: so a permit whose holder died comes back
-- at the first attempt that needs it; an attempt the count covers leaves them for later (they change nothing for
-- it, and every count read of the API reclaims first). Both keys are checked before the first write: the count by
-- its read, the table by the first ZADD of the ids, the first write (a table of another type refuses it, changing
-- nothing), so DECRBY never runs without its ids. When the count has a TTL, the table gets the same one, so
-- neither outlives the other (Redisson does the same).
-- Wire protocol: Redisson's RPermitExpirableSemaphore tryAcquire (docs/protocol.md §13.2), except that "now" is the
-- server's TIME, not the caller's wall clock, and that it reclaims every expired permit, not only n.

--#include leased_semaphore_keys
--#include permit_id
--#include server_now_ms
--#include reclaim_expired

local wanted = #ARGV - 3
local available, refusal = permit_count(KEYS[1])
if refusal then
    return refusal
end
local now = server_now_ms()
if available < wanted then
    local expired, earliest
    expired, earliest, refusal = expired_permits(KEYS[2], now)
    if refusal then
        return refusal
    end
    available = reclaim_expired(KEYS[1], KEYS[2], available, expired, ARGV[2], ARGV[3])
    if available < wanted then
        local first = earliest or redis.call('zrange', KEYS[2], 0, 0, 'withscores')
        if first[2] == nil or tonumber(first[2]) >= 922337203685477 then
            return -1
        end
        return math.max(1, tonumber(first[2]) - now)
    end
end
local expiry = now + tonumber(ARGV[1])
-- ZADD in chunks of 500 ids (Lua's unpack limit); the first chunk is the table's type check, so the rest cannot fail
for first = 4, #ARGV, 500 do
    local members = {}
    for i = first, math.min(first + 499, #ARGV) do
        members[#members + 1] = expiry
        members[#members + 1] = permit_id(ARGV[i])
    end
    local _, wrong = keyed_read(PERMIT_TABLE_REFUSAL, 'zadd', KEYS[2], unpack(members))
    if wrong then
        return wrong
    end
end
redis.call('decrby', KEYS[1], wanted)
local ttl = redis.call('pttl', KEYS[1])
if ttl > 0 then
    redis.call('pexpire', KEYS[2], ttl)
end
return 0
