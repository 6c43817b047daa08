package io.dlock.spring.boot;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Polls a condition with a bound, for tests. */
public final class Wait {
    private Wait() {
    }

    /** @throws AssertionError naming {@code what} when {@code condition} is still false after {@code timeout} */
    public static void until(Duration timeout, String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("still not true after " + timeout + ": " + what);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for: " + what, e);
            }
        }
    }
}
