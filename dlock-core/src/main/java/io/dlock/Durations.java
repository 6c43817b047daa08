package io.dlock;

import java.time.Duration;
import java.util.Objects;

/** Converts the {@link Duration} overloads of the API into the millisecond form. */
final class Durations {
    private Durations() {
    }

    /**
     * @return {@code duration} in ms (rounded down), or {@code Long.MAX_VALUE} when it is longer than that: the
     *         callers refuse a lease that long and read a wait that long as "no limit"
     * @throws IllegalArgumentException when {@code duration} is negative: the {@code -1} codes of the
     *                                  {@code (long, TimeUnit)} forms are not reachable through a {@link Duration}
     */
    static long toMillis(Duration duration, String parameter) {
        Objects.requireNonNull(duration, parameter);
        if (duration.isNegative()) {
            throw new IllegalArgumentException(parameter + " must not be negative: " + duration);
        }
        try {
            return duration.toMillis();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }
}
