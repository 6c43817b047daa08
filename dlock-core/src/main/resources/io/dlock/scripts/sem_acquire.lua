-- Semaphore: take permits if enough are available, leaving a grant mark under the attempt's own id.
--
-- KEYS[1]  the permit count (the semaphore's name): a string holding a decimal integer
-- KEYS[2]  the attempt's grant mark, {NAME}:dlock_grant:<attempt id> (NAME:dlock_grant:<id> when NAME has a
--          hash tag), on the count's slot; the id is fresh for every attempt
-- ARGV[1]  permits to take (> 0)
-- ARGV[2]  how long the mark lives, in ms (> 0)
--
-- Returns  1 when the permits were taken (the count lowered by ARGV[1], the mark set to ARGV[1] with its TTL), 0
--          when fewer are available (a missing key has none) and nothing was changed; the error of permit_count when
--          the key is not a permit count.
--
-- Invariant: the count never goes below zero through an acquisition; its TTL is kept (DECRBY). The mark says that
-- this attempt took ARGV[1] permits: an attempt whose reply was lost is undone by sem_give_back with the same id,
-- which finds the mark (the attempt ran) or not (it took nothing). The mark expires by itself; a give-back that came
-- after it would give nothing back, so a permit can be lost that way but never created.
-- Wire protocol: Redisson's RSemaphore tryAcquire (docs/protocol.md §13.1): same predicate, same write; the mark is
-- dlock's own key, which Redisson never reads.

--#include permit_count

local available, refusal = permit_count(KEYS[1])
if refusal then
    return refusal
end
local wanted = tonumber(ARGV[1])
if available < wanted then
    return 0
end
redis.call('decrby', KEYS[1], wanted)
redis.call('set', KEYS[2], wanted, 'px', ARGV[2])
return 1
