-- Fragment read_release_ttl: the TTL a read-mode lock hash needs after a reader releases some of its read holds.
--
-- read_release_ttl(hash, root, field, left) returns (ttl, kept): the longest PTTL in ms among the read holds that
-- stay (every other reader's, and the first `left` holds of `field`), 0 when none is live (no PTTL read at all when
-- no hold stays); kept is true when that TTL is the hash's current TTL, so the caller need not set it again. Writes
-- nothing.
--
-- Why it may stop early, and stays exact. Every script of either library that gives the hash a TTL leaves it at
-- least the PTTL of every live read hold (a read acquisition raises it to its lease when that is longer; a release,
-- a renewal and a write release set it to the longest live hold). So once one hold that stays shows a PTTL equal to
-- the hash's own (within READ_TTL_SLACK_MS, below), no hold can be longer: the full scan would find the hash's TTL,
-- and it is kept. The last field's holds are read first: HGETALL lists a small hash in insertion order, so the
-- newest reader, the likeliest to hold the longest lease, comes first. When none equals it -- the longest hold was the one released, or the TTL is higher than every hold, as a
-- Redisson write release that keeps read holds leaves it -- every hold is read and the exact longest returned.
-- A hold longer than the hash's TTL (a state no script leaves, but a Redisson write re-entry can) never stops the
-- scan, so the hash is raised to the longest hold as before.
--
-- Wire protocol: docs/protocol.md §4.3.
--#include read_hold_timeouts

-- How far below the hash's PTTL a hold's PTTL may be and still prove it: Redis 6.2 reads the clock per command, so a
-- hold key and the hash set by one script may expire 1 ms apart. The hash then outlives that hold by at most this.
local READ_TTL_SLACK_MS = 2

local function read_release_ttl(hash, root, field, left)
    local keys = read_hold_timeouts(hash, root, field, left)
    if #keys == 0 then
        return 0, false
    end
    local current = redis.call('pttl', hash)
    local longest = 0
    for i = #keys, 1, -1 do
        local pttl = redis.call('pttl', keys[i])
        if pttl > 0 and pttl <= current and pttl >= current - READ_TTL_SLACK_MS then
            return current, true
        end
        if pttl > longest then
            longest = pttl
        end
    end
    return longest, false
end
