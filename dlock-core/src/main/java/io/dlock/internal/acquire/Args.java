package io.dlock.internal.acquire;

import io.dlock.DistributedLock;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The argument rules of every kind (locks, semaphores, latches), written once: each message names the object, its kind
 * and the parameter, and a refused argument is refused before anything is sent, so nothing is written or published.
 *
 * <p>Times: every lease or TTL that passes is one Redis accepts Every lease that passes is
 * one Redis accepts ({@code PEXPIRE} refuses times past the end of its clock) and that the client's nanosecond
 * deadlines can count without overflow: at most {@link DistributedLock#MAX_LEASE}. Waits longer than that mean "no
 * limit", so that a deadline never overflows into the past.
 */
public final class Args {
    /** {@link DistributedLock#MAX_LEASE} in ms. */
    public static final long MAX_LEASE_MS = DistributedLock.MAX_LEASE.toMillis();
    private static final long MAX_WAIT_NANOS = DistributedLock.MAX_LEASE.toNanos();

    private Args() {
    }

    /** @return the lease in ms, or {@link DistributedLock#LEASE_WATCHDOG} */
    public static long leaseMillis(String lockName, long leaseTime, TimeUnit unit) {
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
    public static long extensionMillis(String lockName, Duration lease) {
        return io.dlock.Leases.leaseMillis("lock '" + lockName + "'", "lease", lease);
    }

    /**
     * @return the wait in nanoseconds (0 = one attempt), or {@link DistributedLock#WAIT_FOREVER} (also for a wait
     *         longer than {@link DistributedLock#MAX_LEASE})
     */
    public static long waitNanos(String lockName, long waitTime, TimeUnit unit) {
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

    /**
     * A wait given as a {@link Duration} (semaphores, latches), by the locks' rule: 0 = one attempt; longer than
     * {@link DistributedLock#MAX_LEASE} (including {@code ChronoUnit.FOREVER.getDuration()}) = no limit.
     *
     * @return the wait in nanoseconds, or {@link DistributedLock#WAIT_FOREVER}
     * @throws NullPointerException     when {@code wait} is null
     * @throws IllegalArgumentException when it is negative, naming the object
     */
    public static long waitNanos(String kind, String name, String parameter, Duration wait) {
        return io.dlock.Leases.waitNanos(kind + " '" + name + "'", parameter, wait);
    }

    /**
     * A lease or TTL given as a {@link Duration}: from 1 ms to {@link DistributedLock#MAX_LEASE}, which every Redis
     * accepts ({@code PX}, {@code PEXPIRE}).
     *
     * @return it in ms
     * @throws NullPointerException     when it is null
     * @throws IllegalArgumentException outside that range, naming the object
     */
    public static long durationMillis(String kind, String name, String parameter, Duration value) {
        return io.dlock.Leases.leaseMillis(kind + " '" + name + "'", parameter, value);
    }

    /**
     * A count of permits or a delta: at least {@code min}; the wire (and Redisson, whose API counts permits in
     * {@code int}) holds any {@code int}.
     *
     * @throws IllegalArgumentException below {@code min}, naming the object
     */
    public static int atLeast(String kind, String name, String parameter, int value, int min) {
        if (value < min) {
            throw new IllegalArgumentException(kind + " '" + name + "': " + parameter + " must be at least " + min
                    + ": " + value);
        }
        return value;
    }

    /** @throws IllegalArgumentException when {@code value} is 0, naming the object */
    public static int notZero(String kind, String name, String parameter, int value) {
        if (value == 0) {
            throw new IllegalArgumentException(kind + " '" + name + "': " + parameter + " must not be 0");
        }
        return value;
    }
}
