-- Fragment acquire_refused: the checks every lock acquire script makes before it reads or writes anything.
--
-- acquire_refused(lease, key) returns nil when the lease argument is valid (fragment invalid_lease) and `key`, the
-- lock's hash, is missing or a hash (fragment wrong_type); otherwise the error reply the script returns at once.
--
-- Invariant: a refused acquisition changes nothing. Wire protocol: docs/protocol.md §1.2.
--#include invalid_lease
--#include wrong_type
local function acquire_refused(lease, key)
    return invalid_lease(lease) or wrong_type(key)
end
