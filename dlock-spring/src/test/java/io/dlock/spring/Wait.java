package io.dlock.spring;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Polls a condition with a bound, instead of sleeping as an assertion. */
final class Wait {
    private Wait() {
    }

    /** @throws AssertionError when {@code condition} is still false after {@code timeout} */
    static void until(Duration timeout, String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + timeout + ": " + what);
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for: " + what, e);
            }
        }
    }
}
