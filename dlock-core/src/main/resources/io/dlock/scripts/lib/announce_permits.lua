-- Fragment announce_permits: the one message rule of both semaphores' channels.
--
-- announce_permits(command, channel, count) publishes `count`, the permits available after a change, as a decimal
-- integer on `channel` with `command` (fragment notify), and only when it is above zero, and answers how many
-- subscribers the message reached (0 when nothing was published; a release's caller compares it with its own
-- subscription to learn whether other clients' waiters were woken, docs/architecture.md §12): Redisson's waiters read the
-- payload as the number of waiters to wake, and throw on a negative one (docs/protocol.md §13). A change that sets the
-- count (set, try-set, a reclaim) calls it before its write, so a publish that fails changes nothing; a release
-- (fragment add_permits) calls it after, with the count INCRBY answered, as Redisson's releases do: a publish refused
-- there (an ACL without the channel) fails the call with the permits given back and no message.
--#include notify
local function announce_permits(command, channel, count)
    if count > 0 then
        return notify(command, channel, string.format('%d', count))
    end
    return 0
end
