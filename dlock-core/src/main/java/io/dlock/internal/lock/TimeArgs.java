package io.dlock.internal.lock;

import io.dlock.DistributedLock;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Validates the time arguments of the lock API; messages name the parameter and the lock. Every lease that passes is
 * one Redis accepts ({@code PEXPIRE} refuses times past the end of its clock) and that the client's nanosecond
 * deadlines can count without overflow: at most {@link DistributedLock#MAX_LEASE}. Waits longer than that mean "no
 * limit", so that a deadline never overflows into the past.
 */
final class TimeArgs {
    /** {@link DistributedLock#MAX_LEASE} in ms. */
    static final long MAX_LEASE_MS = DistributedLock.MAX_LEASE.toMillis();
    private static final long MAX_WAIT_NANOS = DistributedLock.MAX_LEASE.toNanos();

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
        if (ms > MAX_LEASE_MS) {
            throw new IllegalArgumentException("lock '" + lockName + "': leaseTime " + leaseTime + " " + unit
                    + " is longer than the longest lease, " + DistributedLock.MAX_LEASE.toDays() + " days (use "
                    + "LEASE_WATCHDOG for a hold that lasts while its holder lives)");
        }
        return ms;
    }

    /**
     * @return the lease of {@link DistributedLock#extendLease} in ms
     * @throws NullPointerException     when {@code lease} is null
     * @throws IllegalArgumentException when it is shorter than 1 ms (zero and negative included: no {@code Duration}
     *                                  means "watchdog") or longer than {@link DistributedLock#MAX_LEASE}
     */
    static long extensionMillis(String lockName, Duration lease) {
        Objects.requireNonNull(lease, "lease");
        if (lease.compareTo(Duration.ofMillis(1)) < 0 || lease.compareTo(DistributedLock.MAX_LEASE) > 0) {
            throw new IllegalArgumentException("lock '" + lockName + "': lease must be between 1 ms and "
                    + DistributedLock.MAX_LEASE.toDays() + " days: " + lease);
        }
        return lease.toMillis();
    }

    /**
     * @return the wait in nanoseconds (0 = one attempt), or {@link DistributedLock#WAIT_FOREVER} (also for a wait
     *         longer than {@link DistributedLock#MAX_LEASE})
     */
    static long waitNanos(String lockName, long waitTime, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        if (waitTime == DistributedLock.WAIT_FOREVER) {
            return DistributedLock.WAIT_FOREVER;
        }
        if (waitTime < 0) {
            throw new IllegalArgumentException("lock '" + lockName + "': waitTime must be >= 0 or WAIT_FOREVER (-1): "
                    + waitTime);
        }
        long nanos = unit.toNanos(waitTime);
        return nanos > MAX_WAIT_NANOS ? DistributedLock.WAIT_FOREVER : nanos;
    }
}
