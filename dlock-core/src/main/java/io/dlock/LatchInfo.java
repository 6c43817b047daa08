package io.dlock;

import java.util.Objects;

/**
 * A read-only snapshot of a {@link DistributedCountDownLatch} (written by dlock or Redisson), as
 * {@link LockClient#inspectCountDownLatch(String)} read it in one round trip.
 *
 * @param name      the latch's name
 * @param count     the remaining count; 0 when the latch is open (no count in Redis: never set, counted down to zero,
 *                  deleted or expired)
 * @param ttlMillis the latch's remaining time to live, with the codes of
 *                  {@link DistributedCountDownLatch#remainTimeToLive()}: {@link DistributedLock#TTL_NO_EXPIRY} (-1)
 *                  for none, {@link DistributedLock#TTL_NOT_LOCKED} (-2) when there is no count in Redis
 */
public record LatchInfo(String name, long count, long ttlMillis) {

    /** @throws NullPointerException when {@code name} is null */
    public LatchInfo {
        Objects.requireNonNull(name, "name");
    }

    /** @return whether the latch is open: its awaiters return at once */
    public boolean isOpen() {
        return count <= 0;
    }
}
