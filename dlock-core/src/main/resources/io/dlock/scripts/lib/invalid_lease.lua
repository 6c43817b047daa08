-- Fragment invalid_lease: the bound on leases, checked by every script that sets a lease it is given.
--
-- invalid_lease(arg) returns nil when `arg` (the ARGV entry holding a lease in ms) is a number from 1 to the longest
-- lease, DistributedLock.MAX_LEASE in ms; otherwise the error reply "ERR dlock: invalid lease: <arg> ms", which the
-- caller returns at once.
--
-- Invariant: a lease that PEXPIRE would not apply is refused before anything is written, so that no hold is left
-- without a TTL (the client refuses it too, before sending). The bound is no literal: LuaScript.load writes the value
-- of DistributedLock.MAX_LEASE in ms (ScriptConstants, placeholder MAX_LEASE_MS) into the comparison below, so the
-- client and the scripts cannot disagree. Wire protocol: every hold has a TTL (docs/protocol.md §9.2).
local function invalid_lease(arg)
    local lease_ms = tonumber(arg)
    if not lease_ms or lease_ms < 1 or lease_ms > ${MAX_LEASE_MS} then
        return redis.error_reply('ERR dlock: invalid lease: ' .. tostring(arg) .. ' ms')
    end
    return nil
end
