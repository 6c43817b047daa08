package io.dlock.reactor;

import io.dlock.DistributedLock;

import java.time.Duration;
import java.util.Objects;

/**
 * Argument checks made when a Mono is assembled, so that a bad argument is thrown to the code that wrote it, not
 * signalled later to whoever subscribes. The rules are the core's public ones, as its Javadoc states them (a wait is
 * at least zero, a lease or a TTL from 1 ms to {@link DistributedLock#MAX_LEASE}, a permit count at least one and, for
 * a leased semaphore, at most {@link io.dlock.LeasedSemaphore#MAX_PERMITS_AT_ONCE}, counts and deltas as each kind
 * bounds them); each message names the object and the parameter. Every reactive method with an argument checks it
 * here, so that the core never refuses one at subscription. Stateless.
 */
final class Checks {
    private Checks() {
    }

    /** @throws IllegalArgumentException when {@code wait} is negative */
    static Duration waitTime(String kind, String name, String parameter, Duration wait) {
        io.dlock.Leases.waitNanos(kind + " '" + name + "'", parameter, wait);
        return wait;
    }

    /** @throws IllegalArgumentException when {@code lease} is shorter than 1 ms or longer than the longest lease */
    static Duration lease(String kind, String name, String parameter, Duration lease) {
        io.dlock.Leases.leaseMillis(kind + " '" + name + "'", parameter, lease);
        return lease;
    }

    /** @throws IllegalArgumentException when {@code permits} is below one */
    static int permits(String kind, String name, int permits) {
        return (int) within(kind, name, "permits", permits, 1, Integer.MAX_VALUE);
    }

    /**
     * A count: from {@code min} to {@code max} (no upper bound when {@code max} is {@link Integer#MAX_VALUE} or
     * {@link Long#MAX_VALUE}).
     *
     * @throws IllegalArgumentException outside that range, naming the object and the parameter
     */
    static long within(String kind, String name, String parameter, long value, long min, long max) {
        boolean bounded = max != Integer.MAX_VALUE && max != Long.MAX_VALUE;
        if (value < min || value > max) {
            throw new IllegalArgumentException(kind + " '" + name + "': " + parameter + " must be "
                    + (bounded ? "from " + min + " to " + max : "at least " + min) + ": " + value);
        }
        return value;
    }

    /** @throws IllegalArgumentException when {@code value} is 0, naming the object and the parameter */
    static int notZero(String kind, String name, String parameter, int value) {
        if (value == 0) {
            throw new IllegalArgumentException(kind + " '" + name + "': " + parameter + " must not be 0");
        }
        return value;
    }

    /**
     * A name as {@link io.dlock.LockClient#inspect(String)} takes it: not blank. (The getters of
     * {@link ReactiveLockClient} check names through the core's getters.)
     *
     * @throws NullPointerException     when {@code name} is null
     * @throws IllegalArgumentException when it is blank
     */
    static String name(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("name is blank: '" + name + "'");
        }
        return name;
    }

    /** @throws NullPointerException naming {@code parameter} */
    static <T> T notNull(T value, String parameter) {
        return Objects.requireNonNull(value, parameter);
    }
}
