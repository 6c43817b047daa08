-- Fragment hold_gone: the hold an acquisition would re-enter is gone from Redis (docs/protocol.md §1.9).
--
-- hold_gone(hash, field, held[, present]) is true when `held` (the acquisitions of this owner's hold that its client
-- counts on: granted and not being released; nil when the client did not say) is positive while `field` is absent
-- from `hash`; `present`, when given, is whether the caller just read the field (no HEXISTS then).
-- The hold was removed (a forceUnlock, a failover, a restart) or ran out, and another owner may have held the lock
-- since: the acquisition must not re-create the field as if it were a re-entry. The script then changes nothing and
-- answers HOLD_GONE; the client reports the loss to its lease-lost listeners and to the caller.
-- Wire protocol: Redisson sends no such argument and reads nothing this leaves.
local HOLD_GONE = -4
local function hold_gone(hash, field, held, present)
    if held == nil or held <= 0 then
        return false
    end
    if present == nil then
        present = redis.call('hexists', hash, field) == 1
    end
    return not present
end
