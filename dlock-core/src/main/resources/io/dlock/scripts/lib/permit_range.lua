-- Fragment permit_range: the refusal of a change that would take a permit count out of the range of a Java int.
--
-- permit_range(after) returns nil when `after` (the count a change would leave) is within [-2^31, 2^31 - 1], the
-- range in which both dlock and Redisson (whose API counts permits in int) read it back; otherwise the error reply
-- the caller returns at once, before it publishes anything (sem_update's "add" checks the count INCRBY answered, and
-- puts it back before returning this):
--   "DLOCK_OUT_OF_RANGE dlock: the permit count would become <after>, outside the range of a Java int; nothing was
--   changed"
-- The client turns it into an IllegalArgumentException naming the semaphore (io.dlock.internal.Errors).
local function permit_range(after)
    if after > 2147483647 or after < -2147483648 then
        return redis.error_reply('DLOCK_OUT_OF_RANGE dlock: the permit count would become '
                .. string.format('%.0f', after) .. ', outside the range of a Java int; nothing was changed')
    end
    return nil
end
