package io.dlock.it.support;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * Bounded polling for tests: instead of sleeping and hoping, poll a condition every {@value #POLL_MILLIS} ms until it
 * holds (or, with {@link #during}, check that it keeps holding for a whole interval).
 *
 * <p>A condition that throws counts as "not yet"; the last exception is attached to the failure as its cause.
 */
public final class Wait {

    /** How often a condition is polled. */
    public static final long POLL_MILLIS = 10;

    private Wait() {
    }

    /** A condition that may throw (a Redis call, a future's result …). */
    @FunctionalInterface
    public interface Condition {
        boolean test() throws Exception;
    }

    /** A block of assertions that may throw. */
    @FunctionalInterface
    public interface Assertions {
        void run() throws Exception;
    }

    /**
     * Polls {@code condition} until it returns true.
     *
     * @return how long it took
     * @throws AssertionError with {@code message} when it does not within {@code timeout}
     */
    public static Duration until(Duration timeout, Condition condition, String message) {
        return until(timeout, condition, () -> message);
    }

    /** As {@link #until(Duration, Condition, String)}, with a message computed on failure (e.g. showing the state). */
    public static Duration until(Duration timeout, Condition condition, Supplier<String> message) {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        Throwable last = null;
        while (true) {
            try {
                if (condition.test()) {
                    return Duration.ofNanos(System.nanoTime() - start);
                }
                last = null;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(message.get() + " (interrupted while waiting)", e);
            } catch (Exception | AssertionError e) {
                last = e;
            }
            if (System.nanoTime() - deadline >= 0) {
                AssertionError failure = new AssertionError(message.get() + " (not within " + timeout.toMillis()
                        + " ms)");
                if (last != null) {
                    failure.initCause(last);
                }
                throw failure;
            }
            pause();
        }
    }

    /**
     * Runs {@code assertions} until they pass.
     *
     * @throws AssertionError the last failure, when they do not pass within {@code timeout}
     */
    public static Duration untilAsserted(Duration timeout, Assertions assertions) {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        while (true) {
            try {
                assertions.run();
                return Duration.ofNanos(System.nanoTime() - start);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting", e);
            } catch (Exception | AssertionError e) {
                if (System.nanoTime() - deadline >= 0) {
                    AssertionError failure = new AssertionError("still failing after " + timeout.toMillis() + " ms: "
                            + e, e);
                    throw failure;
                }
            }
            pause();
        }
    }

    /**
     * Checks that {@code condition} holds at every poll for the whole {@code interval} (and at its end).
     *
     * @throws AssertionError with {@code message} and the elapsed time as soon as it does not hold
     */
    public static void during(Duration interval, Condition condition, String message) {
        during(interval, condition, () -> message);
    }

    /** As {@link #during(Duration, Condition, String)}, with a message computed on failure. */
    public static void during(Duration interval, Condition condition, Supplier<String> message) {
        long start = System.nanoTime();
        long end = start + interval.toNanos();
        while (true) {
            boolean ok;
            try {
                ok = condition.test();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(message.get() + " (interrupted)", e);
            } catch (Exception e) {
                throw new AssertionError(message.get() + " (failed after "
                        + Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms)", e);
            }
            if (!ok) {
                throw new AssertionError(message.get() + " (stopped holding after "
                        + Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms)");
            }
            if (System.nanoTime() - end >= 0) {
                return;
            }
            pause();
        }
    }

    /** Milliseconds elapsed since a {@link System#nanoTime()} reading. */
    public static long millisSince(long startNanos) {
        return Duration.ofNanos(System.nanoTime() - startNanos).toMillis();
    }

    private static void pause() {
        try {
            Thread.sleep(POLL_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting", e);
        }
    }
}
