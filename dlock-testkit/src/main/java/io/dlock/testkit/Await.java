package io.dlock.testkit;

import java.time.Duration;
import java.util.function.Supplier;

/** Bounded polling for the topologies: waits until a check reports no problem, or fails naming the last one. */
final class Await {
    private static final long POLL_MILLIS = 20;

    private Await() {
    }

    /**
     * Polls {@code check} until it returns null ("nothing wrong") or {@code timeout} passed.
     *
     * @param check returns null when the condition holds, else what is still wrong (for the failure message)
     * @throws IllegalStateException naming {@code what} and the last problem when the time is up, or when interrupted
     *                               (the interrupt flag is kept)
     */
    static void until(Duration timeout, String what, Supplier<String> check) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            String problem;
            try {
                problem = check.get();
            } catch (RuntimeException e) {
                problem = e.toString();
            }
            if (problem == null) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(what + ": not done within " + timeout.toMillis() + " ms; last check: "
                        + problem);
            }
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(what + ": interrupted; last check: " + problem, e);
            }
        }
    }
}
