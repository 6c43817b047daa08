-- Client card: write, refresh or remove the card that tells who a client is (holder identity).
--
-- KEYS[1]  the card, dlock_client:{CID}
-- ARGV[1]  the card's time to live in ms (3 watchdog timeouts), or 0 to remove the card
-- ARGV[2…] the card's fields and values, flat: host, pid, application, since (only when ARGV[1] is not 0)
--
-- Returns  1 when the card was written or removed, 0 when the key holds another type (left as it was).
--
-- Invariant: the card always has a TTL; a key of another type is never changed. Wire protocol: docs/protocol.md §6.1.

--#include wrong_type

if not_a_hash(KEYS[1]) then
    return 0
end
if ARGV[1] == '0' then
    redis.call('del', KEYS[1])
    return 1
end
redis.call('hset', KEYS[1], unpack(ARGV, 2))
redis.call('pexpire', KEYS[1], ARGV[1])
return 1
