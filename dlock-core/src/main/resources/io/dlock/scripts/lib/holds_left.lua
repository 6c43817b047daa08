-- Fragment holds_left: how many holds an owner keeps after a release (the known-count rule of the unlock).
--
-- holds_left(count, left_arg, action) takes the owner's count in the lock hash (a number >= 1), `left_arg` (the ARGV
-- entry with the owner's count after this call as its client knows it, "-1" or absent when it knows of none) and
-- `action` (the ARGV entry "release", the default, or "drop-unknown"). Returns the count the owner keeps: left_arg,
-- or count - 1 when left_arg is absent or negative. Returns nil when there is nothing to do: "drop-unknown" (an
-- acquisition gave up after an attempt whose reply never came) only brings a count above left_arg down to it.
--
-- Invariant: the count after the call is the one the client knows, so a lost reply of an earlier acquisition (counted
-- in Redis, never seen by the client) cannot keep the lock held after the owner's last unlock.
-- Wire protocol: Redisson sends no known count and reads nothing this leaves (docs/protocol.md §1.7).
local function holds_left(count, left_arg, action)
    local left = tonumber(left_arg)
    if not left or left < 0 then
        left = count - 1
    end
    if action == 'drop-unknown' and count <= left then
        return nil
    end
    return left
end
