package io.dlock.cli;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Bounded polling: the tests wait for conditions, never for fixed times. */
final class Poll {
    private Poll() {
    }

    /** Waits until {@code condition} holds, checking every 20 ms; fails with {@code message} after {@code timeout}. */
    static void until(Duration timeout, BooleanSupplier condition, Supplier<String> message) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + timeout + ": " + message.get());
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    static long millisSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }
}
