package io.dlock;

import java.time.Duration;
import java.util.Objects;

/** Converts the {@link Duration} overloads of the API into the millisecond form. */
final class Durations {
    private Durations() {
    }

    static long toMillis(Duration duration, String parameter) {
        Objects.requireNonNull(duration, parameter);
        try {
            return duration.toMillis();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(parameter + " is too large: " + duration, e);
        }
    }
}
