-- Leased semaphore: give permits back by their ids, each on its own or all or none.
--
-- KEYS[1]  the permit count (the semaphore's name)
-- KEYS[2]  the permit table, {NAME}:timeout
-- ARGV[1]  the publish command: "publish", "spublish" or "both"
-- ARGV[2]  the semaphore's channel, redisson_sc:{NAME} (not a key)
-- ARGV[3]  the mode: "each" (every id in the table is given back, whatever the others) or "all" (all or none: the ids
--          are given back only if every one is in the table with its lease running; otherwise nothing changes)
-- ARGV[4…] the permits' ids: 32 lower-case hex digits each, distinct (at least one)
--
-- Returns  a list with, per id in order:
--            1  it was in the table with its lease still running (by the server's clock) and is given back;
--            0  it was in the table but its lease had ended (not reclaimed yet): given back now ("each" only), but
--               its holder was not protected by it any more;
--           -1  it is not in the table (never acquired, released already, or expired and reclaimed): nothing changed
--               for it;
--            2  "all" refused: it is held with its lease running and is kept (another id was not held);
--           -2  "all" refused: it is in the table but its lease had ended; it is kept, for the next reclaim;
--          then one more element: how many subscribers the release's message reached (0 when nothing was published);
--          or the error of permit_count / permit_table when a key has the wrong type.
--
-- Invariant: a permit goes back to the count at most once (the ZREM that removes its id decides); "all" changes
-- nothing unless every id is held. Both keys are checked before the first write: the table by its first ZSCORE, the
-- count by add_permits, the first write; a call that gives nothing back checks the count by reading it. The new count
-- is published after the writes (fragment add_permits): when that publish is refused, the caller sees a failed
-- release, and a second one finds the ids gone (-1).
-- Wire protocol: Redisson's RPermitExpirableSemaphore tryRelease(id) ("each", one id) and tryRelease(ids) ("all",
-- Redisson 3.41+: nothing is released when any id is missing or expired) (docs/protocol.md §13.2). Redisson answers
-- 0 for both of our 0 and -1, and a count for a list; it publishes that count where dlock publishes the new total.

--#include permit_count
--#include add_permits
--#include permit_table
--#include keyed_read
--#include permit_id
--#include server_now_ms
--#include announce_permits

local refusal
local now = server_now_ms()
local all = ARGV[3] == 'all'
local ids = {}
local states = {}
local found = 0
local live = 0
for i = 4, #ARGV do
    local id = permit_id(ARGV[i])
    local expiry
    if i == 4 then
        -- the first read of the table is its type check: nothing is written before the loop ends
        expiry, refusal = keyed_read(PERMIT_TABLE_REFUSAL, 'zscore', KEYS[2], id)
        if refusal then
            return refusal
        end
    else
        expiry = redis.call('zscore', KEYS[2], id)
    end
    ids[i - 3] = id
    if expiry == false then
        states[i - 3] = -1
    elseif tonumber(expiry) > now then
        states[i - 3] = 1
        found = found + 1
        live = live + 1
    else
        states[i - 3] = 0
        found = found + 1
    end
end
if found == 0 or (all and live < #ids) then
    -- nothing goes back: the count is only checked
    local _
    _, refusal = permit_count(KEYS[1])
    if refusal then
        return refusal
    end
    if all then
        for i = 1, #states do
            states[i] = states[i] == 1 and 2 or (states[i] == 0 and -2 or -1)
        end
    end
    states[#states + 1] = 0
    return states
end
local after
after, refusal = add_permits(KEYS[1], found)
if refusal then
    return refusal
end
for i = 1, #ids do
    if states[i] ~= -1 then
        redis.call('zrem', KEYS[2], ids[i])
    end
end
states[#states + 1] = announce_permits(ARGV[1], ARGV[2], after)
return states
