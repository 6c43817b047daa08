-- Fragment hold_record: a plain lock's hold record, dlock_hold:{NAME} (docs/protocol.md §6.2), a hash with who took
-- the hold (field "holder", the owner field), since when (field "since", the server's TIME in epoch ms when the hold
-- was taken) and from which thread (field "thread", the name the client sent). Only clients built with holdDetails
-- send its key; Redisson never reads it, and the lock's own hash is the same with or without it.
--
-- hold_record_refusal(key) returns nil when `key` is nil, absent or a hash; otherwise the WRONGTYPE refusal naming
-- the key, which the caller returns before it writes anything.
-- hold_record(key, holder, thread, lease_ms) writes the record of a hold just taken by `holder` (a first
-- acquisition, or a hand-off), replacing whatever was there, with the hold's lease as its TTL.
-- hold_record_kept(key, holder, lease_ms) gives the holder's record, if it is there, the hold's new TTL (a re-entry).
--
-- Invariant: the record names the hold's holder or nobody: it is written only by the script that gives the hold,
-- deleted with the hold's last release (lock_release, through holder_record), and given the hash's TTL whenever the
-- hash gets one from this holder (re-entry, lock_renew, lock_extend), so it never outlives the hold by more than the
-- TTL the hold had. A reader trusts it only while the hash has a field named by its "holder".

--#include wrong_type
--#include holder_record
--#include server_now_ms

local function hold_record_refusal(key)
    if not key then
        return nil
    end
    local key_type = not_a_hash(key)
    if key_type then
        return redis.error_reply('WRONGTYPE dlock: the key ' .. key .. ' holds a ' .. key_type
                .. ', not a hold record; nothing was changed')
    end
    return nil
end

local function hold_record(key, holder, thread, lease_ms)
    -- the three fields are every field a record has: setting them replaces the record, no DEL needed
    redis.call('hset', key, 'holder', holder, 'since', string.format('%d', server_now_ms()), 'thread', thread)
    redis.call('pexpire', key, lease_ms)
end

local function hold_record_kept(key, holder, lease_ms)
    if holder_record(key, holder) then
        redis.call('pexpire', key, lease_ms)
    end
end
