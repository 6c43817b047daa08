package io.dlock.internal.lock;

import io.dlock.DistributedLock;

import java.util.Objects;
import java.util.concurrent.TimeUnit;

/** Validates the time arguments of the lock API; messages name the parameter and the lock. */
final class TimeArgs {
    private TimeArgs() {
    }

    /** @return the lease in ms, or {@link DistributedLock#LEASE_WATCHDOG} */
    static long leaseMillis(String lockName, long leaseTime, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        if (leaseTime == DistributedLock.LEASE_WATCHDOG) {
            return DistributedLock.LEASE_WATCHDOG;
        }
        if (leaseTime <= 0) {
            throw new IllegalArgumentException("lock '" + lockName + "': leaseTime must be positive or LEASE_WATCHDOG (-1): "
                    + leaseTime);
        }
        long ms = unit.toMillis(leaseTime);
        if (ms < 1) {
            throw new IllegalArgumentException("lock '" + lockName + "': leaseTime is shorter than 1 ms: " + leaseTime + " "
                    + unit);
        }
        return ms;
    }

    /** @return the wait in nanoseconds (0 = one attempt), or {@link DistributedLock#WAIT_FOREVER} */
    static long waitNanos(String lockName, long waitTime, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        if (waitTime == DistributedLock.WAIT_FOREVER) {
            return DistributedLock.WAIT_FOREVER;
        }
        if (waitTime < 0) {
            throw new IllegalArgumentException("lock '" + lockName + "': waitTime must be >= 0 or WAIT_FOREVER (-1): "
                    + waitTime);
        }
        return unit.toNanos(waitTime);
    }
}
