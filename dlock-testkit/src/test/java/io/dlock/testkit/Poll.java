package io.dlock.testkit;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Bounded polling for tests: waits for a condition instead of sleeping a guessed time. */
final class Poll {

    private Poll() {
    }

    static void until(Duration timeout, String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not true within " + timeout.toMillis() + " ms: " + what);
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for: " + what, e);
            }
        }
    }
}
