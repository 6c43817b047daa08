-- Leased semaphore: a release of one permit that hands its place straight to a waiter of the same client, in one call:
-- the released id leaves the permit table and the receiver's fresh id enters it with the receiver's lease; the count
-- stays as it is and nothing is published (no permit became available to anybody).
--
-- KEYS[1]  the permit count (the semaphore's name)
-- KEYS[2]  the permit table, {NAME}:timeout
-- ARGV[1]  the released permit's id: 32 lower-case hex digits
-- ARGV[2]  the receiver's id: 32 lower-case hex digits, fresh (never used before)
-- ARGV[3]  the receiver's lease in ms (> 0): its permit expires at server time + ARGV[3]
--
-- Returns  {state, handed}: state as pes_release gives it for the released id (1: held with its lease running,
--          0: in the table but its lease had ended, -1: not in the table); handed 1 when the receiver's id entered the
--          table, 0 when the released id was not in the table (then nothing changed, and the receiver asks for a
--          permit itself); or the error of permit_count / permit_table when a key has the wrong type.
--
-- Invariant: the count plus the table's size is unchanged: one id leaves and one enters in the same call, so the
-- permit is never free in between (nobody else can take it) and never counted twice. A released id whose lease had
-- ended but that no reclaim has returned yet is still out of the count, so handing its place on takes nothing from
-- anybody. Both keys are checked before the first write: the table by its ZSCORE, the count by its read. The table
-- keeps the TTL pes_acquire gave it from the count. The caller's lost-reply rule: an unanswered call is undone by
-- releasing both ids (pes_release "each"), each of which only this client knows.
-- Wire protocol: docs/protocol.md §13.2 ("Releases handed on within a client"); Redisson has no such call, and sees
-- only a permit table whose member changed.

--#include permit_count
--#include permit_table
--#include keyed_read
--#include permit_id
--#include server_now_ms

local released = permit_id(ARGV[1])
local expiry, refusal = keyed_read(PERMIT_TABLE_REFUSAL, 'zscore', KEYS[2], released)
if refusal then
    return refusal
end
local _
_, refusal = permit_count(KEYS[1])
if refusal then
    return refusal
end
if expiry == false then
    return {-1, 0}
end
local now = server_now_ms()
local state = tonumber(expiry) > now and 1 or 0
redis.call('zrem', KEYS[2], released)
redis.call('zadd', KEYS[2], now + tonumber(ARGV[3]), permit_id(ARGV[2]))
return {state, 1}
