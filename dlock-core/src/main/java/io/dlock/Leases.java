package io.dlock;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The one rule for leases and waits given as {@link Duration}s, for every kind and every module (core, Reactor,
 * Spring): a lease (or a TTL) is from 1 ms to {@link DistributedLock#MAX_LEASE}, which every Redis accepts
 * ({@code PX}, {@code PEXPIRE}); a wait is at least zero (zero: one attempt), and a wait longer than
 * {@link DistributedLock#MAX_LEASE} (including {@code ChronoUnit.FOREVER.getDuration()}) is no limit,
 * {@link DistributedLock#WAIT_FOREVER}. Messages name the object and the parameter.
 *
 * <p>Stateless and thread-safe; no method blocks.
 */
public final class Leases {
    /** The shortest lease or TTL: 1 ms. */
    public static final Duration SHORTEST = Duration.ofMillis(1);

    private Leases() {
    }

    /** @return whether {@code lease} is from {@link #SHORTEST} to {@link DistributedLock#MAX_LEASE} (null: false) */
    public static boolean isValidLease(Duration lease) {
        return lease != null && lease.compareTo(SHORTEST) >= 0 && lease.compareTo(DistributedLock.MAX_LEASE) <= 0;
    }

    /**
     * @param subject   what the lease is for, as errors name it ({@code lock 'orders'})
     * @param parameter the parameter's name ({@code leaseTime}, {@code ttl})
     * @return {@code lease} in ms
     * @throws NullPointerException     when {@code lease} is null, naming the parameter
     * @throws IllegalArgumentException when it is shorter than 1 ms (zero and negative included: no {@code Duration}
     *                                  means "watchdog") or longer than {@link DistributedLock#MAX_LEASE}
     */
    public static long leaseMillis(String subject, String parameter, Duration lease) {
        Objects.requireNonNull(lease, parameter);
        if (!isValidLease(lease)) {
            throw new IllegalArgumentException(subject + ": " + parameter + " must be between 1 ms and "
                    + DistributedLock.MAX_LEASE.toDays() + " days: " + lease);
        }
        return lease.toMillis();
    }

    /**
     * @param subject   what is waited for, as errors name it
     * @param parameter the parameter's name ({@code waitTime}, {@code timeout})
     * @return {@code wait} in ms (0: one attempt), or {@link DistributedLock#WAIT_FOREVER} when it is longer than
     *         {@link DistributedLock#MAX_LEASE}
     * @throws NullPointerException     when {@code wait} is null, naming the parameter
     * @throws IllegalArgumentException when it is negative
     */
    public static long waitMillis(String subject, String parameter, Duration wait) {
        long nanos = waitNanos(subject, parameter, wait);
        return nanos == DistributedLock.WAIT_FOREVER ? nanos : TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    /**
     * {@link #waitMillis} in nanoseconds.
     *
     * @return the wait in ns, or {@link DistributedLock#WAIT_FOREVER}
     */
    public static long waitNanos(String subject, String parameter, Duration wait) {
        Objects.requireNonNull(wait, parameter);
        if (wait.isNegative()) {
            throw new IllegalArgumentException(subject + ": " + parameter + " must not be negative: " + wait);
        }
        return wait.compareTo(DistributedLock.MAX_LEASE) > 0 ? DistributedLock.WAIT_FOREVER : wait.toNanos();
    }
}
