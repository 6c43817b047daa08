package io.dlock.reactor;

import io.dlock.DistributedLock;

import java.time.Duration;
import java.util.Objects;

/**
 * Argument checks made when a Mono is assembled, so that a bad argument is thrown to the code that wrote it, not
 * signalled later to whoever subscribes. The rules are the core's (a wait is at least zero, a lease or a TTL from
 * 1 ms to {@link DistributedLock#MAX_LEASE}, a permit count at least one); each message names the object and the
 * parameter. Stateless.
 */
final class Checks {
    private static final Duration ONE_MS = Duration.ofMillis(1);

    private Checks() {
    }

    /** @throws IllegalArgumentException when {@code wait} is negative */
    static Duration waitTime(String kind, String name, String parameter, Duration wait) {
        Objects.requireNonNull(wait, parameter);
        if (wait.isNegative()) {
            throw new IllegalArgumentException(kind + " '" + name + "': " + parameter + " must not be negative: "
                    + wait);
        }
        return wait;
    }

    /** @throws IllegalArgumentException when {@code lease} is shorter than 1 ms or longer than the longest lease */
    static Duration lease(String kind, String name, String parameter, Duration lease) {
        Objects.requireNonNull(lease, parameter);
        if (lease.compareTo(ONE_MS) < 0 || lease.compareTo(DistributedLock.MAX_LEASE) > 0) {
            throw new IllegalArgumentException(kind + " '" + name + "': " + parameter + " must be between 1 ms and "
                    + DistributedLock.MAX_LEASE.toDays() + " days: " + lease);
        }
        return lease;
    }

    /** @throws IllegalArgumentException when {@code permits} is below one */
    static int permits(String kind, String name, int permits) {
        if (permits < 1) {
            throw new IllegalArgumentException(kind + " '" + name + "': permits must be at least 1: " + permits);
        }
        return permits;
    }

    /** @throws NullPointerException naming {@code parameter} */
    static <T> T notNull(T value, String parameter) {
        return Objects.requireNonNull(value, parameter);
    }
}
